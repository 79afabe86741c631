import { MonitoringApiError } from './errors.ts';
import { cursorOf, nextLink, type Transport } from './transport.ts';
import type {
  AllOptions,
  Deleted,
  ListOptions,
  Notice,
  NoticeChanges,
  NoticeClient,
  NoticeInput,
  Page,
  RequestOptions,
} from './types.ts';

const DEFAULT_PAGE_SIZE = 100;

/** The notices of status pages (`/status-pages/notices`, docs/status-pages.md). */
export function noticesClient(transport: Transport, base: URL): NoticeClient {
  const url = (action: string, id?: number) => {
    const u = new URL(`status-pages/notices${action}`, base);
    if (id !== undefined) u.searchParams.set('id', String(id));
    return u;
  };

  async function list(statusPageId: number, options: ListOptions = {}): Promise<Page<Notice>> {
    const u = url('');
    u.searchParams.set('status_page_id', String(statusPageId));
    if (options.limit !== undefined) u.searchParams.set('limit', String(options.limit));
    if (options.afterId !== undefined) u.searchParams.set('after_id', String(options.afterId));
    const answer = await transport.send<Notice[]>('GET', u, undefined, options);
    const next = nextLink(answer.headers, answer.url);
    if (next !== null && next.searchParams.get('status_page_id') !== String(statusPageId)) {
      throw new MonitoringApiError({
        status: 200,
        code: 'unexpected_response',
        message: `The next-page link is not a next page of these notices: ${next.href}`,
      });
    }
    return { data: answer.data, next: next === null ? null : cursorOf(next, answer.url) };
  }

  async function* all(statusPageId: number, options: AllOptions = {}): AsyncGenerator<Notice, void, undefined> {
    let cursor: ListOptions | null = { limit: options.pageSize ?? DEFAULT_PAGE_SIZE, afterId: options.afterId ?? 0 };
    while (cursor !== null) {
      const page: Page<Notice> = await list(statusPageId, {
        ...cursor,
        signal: options.signal,
        requestId: options.requestId,
      });
      yield* page.data;
      cursor = page.next;
    }
  }

  return {
    list,
    all,
    async create(input: NoticeInput, options?: RequestOptions) {
      return (await transport.send<Notice>('POST', url('/create'), input, options)).data;
    },
    async get(id: number, options?: RequestOptions) {
      return (await transport.send<Notice>('GET', url('/get', id), undefined, options)).data;
    },
    async update(id: number, changes: NoticeChanges, options?: RequestOptions) {
      return (await transport.send<Notice>('PATCH', url('/update', id), changes, options)).data;
    },
    async delete(id: number, options?: RequestOptions) {
      return (await transport.send<Deleted>('DELETE', url('/delete', id), undefined, options)).data;
    },
  };
}
