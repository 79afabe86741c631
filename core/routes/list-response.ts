import { jsonElements, jsonResponse, successResponse, type ApiResponse } from '../http/api-response.ts';
import type { PageRequest } from '../store/store.ts';
import { parseListQuery } from '../validation/list-query.ts';
import { reusedAnswer } from './reused-answer.ts';
import type { RouteContext } from './route-context.ts';

type FetchPage<T> = (page: PageRequest) => Promise<T[]>;

/**
 * A list answer (docs/contract.md §6.4 Lists). With `limit`, one page and a `Link: rel="next"` header when
 * more follow (path-relative: it resolves against the request URL and never echoes a Host header);
 * without, every record, streamed from the store in keyset batches. The first batch is
 * read before the answer starts, so a failing store still gets a proper error status.
 */
export async function listResponse<T extends { id: number }>(
  call: RouteContext,
  fetchPage: FetchPage<T>,
  cacheable = true,
): Promise<ApiResponse> {
  const { limit, afterId } = parseListQuery(call.url.query);
  // A list whose records change with the clock (a maintenance window's `active_now`) is never kept.
  if (!cacheable) return readList(call, fetchPage, limit, afterId);
  return reusedAnswer(call, `${limit ?? ''} ${afterId}`, () => readList(call, fetchPage, limit, afterId));
}

async function readList<T extends { id: number }>(
  call: RouteContext,
  fetchPage: FetchPage<T>,
  limit: number | undefined,
  afterId: number,
): Promise<ApiResponse> {
  if (limit !== undefined) {
    const rows = await fetchPage({ afterId, limit: limit + 1 });
    const headers: Record<string, string> = {};
    if (rows.length > limit) {
      rows.length = limit;
      const next = `${call.url.pathname}?limit=${limit}&after_id=${rows[limit - 1]!.id}`;
      headers.link = `<${next}>; rel="next"`;
    }
    return successResponse(200, rows, headers);
  }
  // Streamed in batches of listBatchSize records: the server holds one at a time.
  const size = call.listBatchSize;
  const first = await fetchPage({ afterId, limit: size });
  if (first.length < size) return successResponse(200, first);
  return jsonResponse(200, streamAll(first, fetchPage, size));
}

async function* streamAll<T extends { id: number }>(
  first: T[],
  fetchPage: FetchPage<T>,
  size: number,
): AsyncGenerator<string> {
  yield `{"success":true,"data":[${jsonElements(first)}`;
  let batch = first;
  while (batch.length === size) {
    batch = await fetchPage({ afterId: batch[batch.length - 1]!.id, limit: size });
    if (batch.length > 0) yield `,${jsonElements(batch)}`;
  }
  yield ']}';
}
