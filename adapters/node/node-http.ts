/**
 * Translation between node:http and the core: Node's request as the core's `ApiRequest`, and the
 * core's answer written to Node's response. index.ts builds the handler from them; the Express
 * adapter and the standalone server reuse them.
 */
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiRequest, ApiResponse, HeaderReader } from '../../core/index.ts';

/**
 * Of the headers the core reads, those node:http keeps only the first of, dropping repeats. The
 * Web's `Headers` (Bun, Deno, the testing kit) joins repeats instead; doing the same here means
 * `Authorization: Bearer A` followed by `Authorization: Bearer B` is refused on every runtime,
 * not let through on one with whichever key came first.
 */
const FIRST_ONLY = new Set(['authorization', 'content-type']);

/** Every value of `name` in the raw headers, joined; null when it appears once. */
function repeated(rawHeaders: string[], name: string): string | null {
  let values: string[] | undefined;
  let first: string | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const field = rawHeaders[i]!;
    if (field.length !== name.length || field.toLowerCase() !== name) continue;
    if (first === undefined) first = rawHeaders[i + 1]!;
    else (values ??= [first]).push(rawHeaders[i + 1]!);
  }
  return values === undefined ? null : values.join(', ');
}

/** Node's headers behind the `get` the core reads: no `Headers` object is built per request. */
class NodeHeaders implements HeaderReader {
  private readonly req: IncomingMessage;
  constructor(req: IncomingMessage) {
    this.req = req;
  }

  get(name: string): string | null {
    const value = this.req.headers[name];
    if (value === undefined) return null;
    if (Array.isArray(value)) return value.join(', ');
    return FIRST_ONLY.has(name) ? (repeated(this.req.rawHeaders, name) ?? value) : value;
  }
}

export function nodeHeaders(req: IncomingMessage): HeaderReader {
  return new NodeHeaders(req);
}

const ENDED: IteratorResult<Uint8Array> = Object.freeze({ done: true, value: undefined });

/**
 * Whether every byte of the body is in the stream's buffer: the message is complete, or as many
 * bytes as Content-Length declares have arrived (node:http's parser may report the message
 * complete only in a later callback than the one that delivered its last bytes). A chunked body
 * is framed by its chunks, whatever Content-Length says beside it (a lenient parser, Node's
 * `insecureHTTPParser`, lets the pair through).
 */
function arrivedWhole(req: IncomingMessage): boolean {
  if (req.complete) return true;
  const declared = req.headers['content-length'];
  return (
    declared !== undefined && req.headers['transfer-encoding'] === undefined && req.readableLength === Number(declared)
  );
}

/**
 * The request's body for the core. A body that has arrived whole by the time the core reads it
 * (most do: a small body comes in the packet of its headers, and the core reads it after
 * authenticating) is handed over as the one buffer node:http holds, without the stream's async
 * iterator, which costs a generator and half a dozen listeners per request. Anything still
 * arriving is read through that iterator.
 */
export function nodeBody(req: IncomingMessage): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
      if (!arrivedWhole(req) || req.readableDidRead || req.readableFlowing !== null) return req[Symbol.asyncIterator]();
      let read = false;
      return {
        next() {
          if (read) return Promise.resolve(ENDED);
          read = true;
          // Every byte is buffered: read() hands over all of it (null for an empty body), and
          // node:http sees the request consumed.
          const whole = req.read() as Buffer | null;
          return Promise.resolve(whole === null ? ENDED : { done: false, value: whole });
        },
        return() {
          read = true;
          return Promise.resolve(ENDED);
        },
      };
    },
  };
}

export function toApiRequest(req: IncomingMessage): ApiRequest {
  return { method: req.method ?? 'GET', url: req.url ?? '/', headers: nodeHeaders(req), body: nodeBody(req) };
}

/**
 * Writes the core's answer as it is, headers included: an answer that must close its connection
 * (a 413 whose body was left unread) says `Connection: close` itself, and node:http then closes.
 * A streamed list honours back-pressure and stops if the client leaves.
 */
export async function writeApiResponse(res: ServerResponse, response: ApiResponse): Promise<void> {
  const { body } = response;
  if (typeof body === 'string') {
    const bytes = response.bodyBytes;
    // A 304 has no body; a Content-Length there would have to be the 200's (RFC 9110 §8.6).
    if (response.status !== 304)
      response.headers['content-length'] = String(bytes?.byteLength ?? response.bodyLength ?? Buffer.byteLength(body));
    res.writeHead(response.status, response.headers);
    res.end(bytes ?? body);
    return;
  }
  res.writeHead(response.status, response.headers);
  const iterator = body[Symbol.asyncIterator]();
  const abandon = () => void iterator.return?.();
  res.once('close', abandon);
  try {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      if (res.destroyed) return;
      if (!res.write(next.value)) await once(res, 'drain');
    }
    res.end();
  } catch (error) {
    // Headers are gone already: the only honest signal left is a broken connection.
    res.destroy(error instanceof Error ? error : new Error(String(error)));
  } finally {
    res.off('close', abandon);
  }
}
