/**
 * Wraps a MonitoringApi so that each answer is appended to OPENAPI_RECORD_FILE as one JSON line:
 * method, pathname, base path, status, headers and body text. Streamed bodies are recorded when
 * the stream has been read to its end, and read only as fast as the test reads them, so the
 * wrapper changes nothing a test can observe.
 */
import { appendFileSync } from 'node:fs';
import type { MonitoringApi } from '../../../core/create-monitoring-api.ts';
import type { ApiRequest, RequestContext } from '../../../core/http/api-request.ts';
import { toWebResponse, type ApiResponse } from '../../../core/http/api-response.ts';
import { fromWebRequest, parseRequestUrl } from '../../../core/http/api-request.ts';

export interface RecordedExchange {
  method: string;
  pathname: string;
  basePath: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The test file that made the request (the runner gives each file its own process). */
  file: string;
}

const file = process.env.OPENAPI_RECORD_FILE;
const testFile = process.argv.find((arg) => arg.endsWith('.test.ts')) ?? process.argv[1] ?? 'unknown';

function write(exchange: RecordedExchange): void {
  if (file !== undefined) appendFileSync(file, `${JSON.stringify(exchange)}\n`);
}

async function* recorded(body: AsyncIterable<string>, done: (text: string) => void): AsyncGenerator<string> {
  let text = '';
  for await (const chunk of body) {
    text += chunk;
    yield chunk;
  }
  done(text);
}

export function recordingApi(api: MonitoringApi): MonitoringApi {
  async function handle(request: ApiRequest, context: RequestContext): Promise<ApiResponse> {
    const response = await api.handle(request, context);
    const base = {
      method: request.method,
      pathname: parseRequestUrl(request.url).pathname,
      basePath: api.basePath,
      status: response.status,
      headers: { ...response.headers },
      file: testFile,
    };
    if (typeof response.body === 'string') {
      write({ ...base, body: response.body });
      return response;
    }
    return { ...response, body: recorded(response.body, (text) => write({ ...base, body: text })) };
  }
  return {
    get basePath() {
      return api.basePath;
    },
    get keys() {
      return api.keys;
    },
    owns: (pathname) => api.owns(pathname),
    close: () => api.close(),
    handle,
    // As MonitoringApi.fetch does, over the recording handle.
    async fetch(request, context = { clientAddress: null }) {
      return toWebResponse(await handle(fromWebRequest(request), context));
    },
  };
}
