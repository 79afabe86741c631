/**
 * `monitoring-api openapi [--base-path P] [--server-url URL] [--markdown] [--output FILE]`: prints the
 * OpenAPI 3.1 document of the v1 API (or writes it to FILE); with --markdown, the API reference
 * rendered from it (docs/api-reference.md). Generated at run time from the schemas that
 * validate requests, so it always describes the server of the same version.
 *
 * `npm run openapi` refreshes the committed copies (openapi.json and docs/api-reference.md) with
 * this command, run from the sources.
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  createOpenApiDocument,
  renderReference,
  serializeOpenApiDocument,
  type OpenApiOptions,
} from '../../core/openapi/index.ts';
import { processIo, type CommandIo } from '../io.ts';

export const OPENAPI_USAGE =
  'usage: monitoring-api openapi [--base-path /v1] [--server-url https://host/v1] [--markdown] [--output FILE]';

/**
 * Why a --server-url cannot be where clients send this API's requests, or undefined. The API is
 * HTTP: an `ftp:` or `file:` server in the document is a typo that client generators would carry
 * on. Credentials would be published with the document; a query or fragment has no place in an
 * OpenAPI server URL (the paths are appended to it).
 */
function serverUrlProblem(text: string): string | undefined {
  if (!URL.canParse(text)) return 'an absolute http(s) URL';
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'an http:// or https:// URL';
  if (url.username !== '' || url.password !== '') return 'a URL without credentials';
  if (url.search !== '' || url.hash !== '' || text.includes('?') || text.includes('#'))
    return 'a URL without a query or fragment';
  return undefined;
}

/** Runs the command; resolves to the process exit code (0, or 2 for bad flags as every command). */
export async function runOpenApiCommand(args: readonly string[], io: CommandIo = processIo): Promise<number> {
  let values: { 'base-path'?: string; 'server-url'?: string; output?: string; markdown?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        'base-path': { type: 'string' },
        'server-url': { type: 'string' },
        output: { type: 'string', short: 'o' },
        markdown: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    io.stderr(
      `monitoring-api openapi: ${(error as Error).message.split('\n')[0]} (see monitoring-api openapi --help)\n`,
    );
    return 2;
  }
  if (values.help === true) {
    io.stdout(`${OPENAPI_USAGE}\n`);
    return 0;
  }
  const options: OpenApiOptions = {};
  if (values['base-path'] !== undefined) options.basePath = values['base-path'];
  if (values['server-url'] !== undefined) {
    const problem = serverUrlProblem(values['server-url']);
    if (problem !== undefined) {
      io.stderr(
        `monitoring-api openapi: --server-url must be ${problem}, got ${JSON.stringify(values['server-url'])}\n`,
      );
      return 2;
    }
    options.serverUrl = values['server-url'];
  }
  let text: string;
  try {
    const document = createOpenApiDocument(options);
    text = values.markdown === true ? renderReference(document) : serializeOpenApiDocument(document);
  } catch (error) {
    // A bad --base-path is the only way the caller can make generation fail.
    io.stderr(`monitoring-api openapi: ${(error as Error).message}\n`);
    return 2;
  }
  if (values.output === undefined) io.stdout(text);
  else await writeFile(values.output, text);
  return 0;
}
