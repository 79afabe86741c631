/**
 * Makes an API check each of its own answers against the OpenAPI document as it gives them: the
 * status documented for the operation, the body matching the response's schema (objects closed)
 * and the headers as documented (see conformance.ts). The API suites (test/api) use it for every
 * API they create, so whatever an HTTP test provokes, the document has to describe it, and a
 * drift fails the very test that provoked it, naming the answer.
 *
 * An answer that does not conform makes the call reject (a string body) or its body stream fail at
 * its end (a streamed list): either way the test awaiting it fails. Streamed bodies are checked
 * once read to their end, and read only as fast as the test reads them, so the check changes
 * nothing else a test can observe.
 */
import { AssertionError } from 'node:assert';
import type { MonitoringApi } from '../../core/create-monitoring-api.ts';
import { fromWebRequest, parseRequestUrl, type ApiRequest, type RequestContext } from '../../core/http/api-request.ts';
import { toWebResponse, type ApiResponse } from '../../core/http/api-response.ts';
import { conformanceFor } from './conformance.ts';

/** Lower-cased header names, as the document and the checker compare them. */
function lowerCased(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

async function* checkedAtEnd(body: AsyncIterable<string>, check: (text: string) => void): AsyncGenerator<string> {
  let text = '';
  for await (const chunk of body) {
    text += chunk;
    yield chunk;
  }
  check(text);
}

/**
 * Replaces `api.handle` and `api.fetch` (in place, so that whatever already holds the object, such
 * as the testing kit's `request`, goes through the check) by versions that check every answer.
 * Returns the same object.
 */
export function checkAnswersAgainstDocument<A extends MonitoringApi>(api: A): A {
  const handle = api.handle.bind(api);
  async function checkedHandle(request: ApiRequest, context: RequestContext): Promise<ApiResponse> {
    const response = await handle(request, context);
    const method = request.method;
    const pathname = parseRequestUrl(request.url).pathname;
    // The public routes (pings, status pages) lie outside the base path and the document, and
    // answer by rules of their own (docs/contract.md §1): test/heartbeats and test/status-pages
    // hold them to those. Only the API's own 404 there is the document's.
    const underBase = pathname === api.basePath || pathname.startsWith(`${api.basePath}/`);
    if (
      !underBase &&
      !(response.status === 404 && typeof response.body === 'string' && response.body.includes('"unknown_route"'))
    )
      return response;
    const check = (text: string): void => {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new AssertionError({
          message: `OpenAPI: ${method} ${pathname} → ${response.status}: the body is not JSON: ${text.slice(0, 200)}`,
        });
      }
      const problems = conformanceFor(api.basePath).check({
        method,
        pathname,
        basePath: api.basePath,
        status: response.status,
        headers: lowerCased(response.headers),
        body,
      });
      if (problems.length > 0)
        throw new AssertionError({ message: `OpenAPI: the answer departs from the document:\n${problems.join('\n')}` });
    };
    if (typeof response.body === 'string') {
      check(response.body);
      return response;
    }
    return { ...response, body: checkedAtEnd(response.body, check) };
  }
  api.handle = checkedHandle;
  // As MonitoringApi.fetch does, over the checking handle (the original fetch calls the unchecked one).
  api.fetch = async (request, context = { clientAddress: null }) =>
    toWebResponse(await checkedHandle(fromWebRequest(request), context));
  return api;
}
