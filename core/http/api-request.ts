/** Reads request headers; satisfied by the Web `Headers` and by adapters' lighter objects. */
export interface HeaderReader {
  get(name: string): string | null;
}

/**
 * What the core reads of a request: a structural subset of the Web `Request`, so that adapters on
 * a hot path can hand over a lighter object than a full `Request`.
 */
export interface ApiRequest {
  readonly method: string;
  /** Absolute (`http://host/v1/me?x=1`) or origin-form (`/v1/me?x=1`). */
  readonly url: string;
  readonly headers: HeaderReader;
  readonly body: AsyncIterable<Uint8Array> | null;
}

/** What only the adapter knows about the connection. */
export interface RequestContext {
  /** The connection's peer address, as the socket reports it (may be IPv4-mapped IPv6). */
  clientAddress: string | null;
}

/** A Web `Request` seen through the subset the core reads. */
export function fromWebRequest(request: Request): ApiRequest {
  // ReadableStream is async-iterable in every runtime the core supports (Node 20, Bun, Deno).
  return {
    method: request.method,
    url: request.url,
    headers: request.headers,
    body: request.body as AsyncIterable<Uint8Array> | null,
  };
}

export interface ParsedUrl {
  /** Scheme and authority of an absolute URL (`http://host:8080`), or '' for origin-form. */
  origin: string;
  pathname: string;
  /** The query string without its `?`. */
  query: string;
}

/** Splits a request URL without a full `URL` parse: the core only needs these three parts. */
export function parseRequestUrl(url: string): ParsedUrl {
  let start = 0;
  let origin = '';
  if (url.charCodeAt(0) !== 47 /* '/' */) {
    const schemeEnd = url.indexOf('://');
    const pathStart = schemeEnd < 0 ? -1 : url.indexOf('/', schemeEnd + 3);
    if (pathStart < 0) {
      const queryAt = url.indexOf('?', schemeEnd + 3);
      return {
        origin: url.slice(0, queryAt < 0 ? url.length : queryAt),
        pathname: '/',
        query: queryAt < 0 ? '' : url.slice(queryAt + 1),
      };
    }
    origin = url.slice(0, pathStart);
    start = pathStart;
  }
  const hashAt = url.indexOf('#', start);
  const end = hashAt < 0 ? url.length : hashAt;
  const queryAt = url.indexOf('?', start);
  if (queryAt < 0 || queryAt > end) return { origin, pathname: url.slice(start, end), query: '' };
  return { origin, pathname: url.slice(start, queryAt), query: url.slice(queryAt + 1, end) };
}
