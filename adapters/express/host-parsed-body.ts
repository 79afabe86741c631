import type { IncomingMessage } from 'node:http';
import { errors } from '../../core/internal.ts';

/** What the core reads as the request body; null for none. */
export type Body = AsyncIterable<Uint8Array> | null;

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** A body the core meets as unreadable where it would read it, after the steps before (auth, scope). */
// eslint-disable-next-line require-yield -- the body fails on its first read: there is nothing to yield
async function* failing(error: Error): AsyncIterable<Uint8Array> {
  throw error;
}

/** Stands for ±Infinity while serialising: JSON.stringify would write null, a different value. */
const INFINITY = `monitoring-api-infinity-${crypto.randomUUID()}`;

function withInfinities(text: string): string {
  return text.replaceAll(`"${INFINITY}"`, '1e400').replaceAll(`"${INFINITY}-"`, '-1e400');
}

/** ±Infinity as a marker string, so it is not written as null; anything else as it is. */
function markInfinity(value: unknown): unknown {
  return typeof value === 'number' && (value === Infinity || value === -Infinity)
    ? `${INFINITY}${value > 0 ? '' : '-'}`
    : value;
}

/** What JSON.stringify makes of a value before writing it: toJSON once, boxed primitives unboxed. */
function prepare(value: unknown, key: string): unknown {
  if (typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  if (value instanceof Number || value instanceof String || value instanceof Boolean) value = value.valueOf();
  return markInfinity(value);
}

/** Values JSON.stringify leaves out of objects (and writes as null in arrays). */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

type Container =
  { items: unknown[]; keys: null; next: number } | { items: Record<string, unknown>; keys: string[]; next: number };

/** JSON.stringify without recursion, for the values too deep for it (see serialiseParsed). */
function serialiseIteratively(root: unknown): string {
  const out: string[] = [];
  const open: Container[] = [];
  const seen = new Set<object>();
  /** Writes a prepared value that is not left out: a primitive, or the opening of a container. */
  const write = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) {
      out.push(omitted(value) ? 'null' : JSON.stringify(value));
      return;
    }
    if (seen.has(value)) throw new TypeError('Converting circular structure to JSON');
    seen.add(value);
    if (Array.isArray(value)) {
      out.push('[');
      open.push({ items: value, keys: null, next: 0 });
    } else {
      out.push('{');
      const items = value as Record<string, unknown>;
      open.push({ items, keys: Object.keys(items), next: 0 });
    }
  };
  const rootValue = prepare(root, '');
  if (omitted(rootValue)) return 'null';
  write(rootValue);
  while (open.length > 0) {
    const top = open[open.length - 1]!;
    if (top.keys === null) {
      if (top.next === top.items.length) {
        out.push(']');
        seen.delete(open.pop()!.items);
        continue;
      }
      if (top.next > 0) out.push(',');
      const index = top.next++;
      write(prepare(top.items[index], String(index)));
      continue;
    }
    let member: [string, unknown] | undefined;
    while (member === undefined && top.next < top.keys.length) {
      const name = top.keys[top.next++]!;
      const value = prepare(top.items[name], name);
      if (!omitted(value)) member = [name, value];
    }
    if (member === undefined) {
      out.push('}');
      seen.delete(open.pop()!.items);
      continue;
    }
    if (out[out.length - 1] !== '{') out.push(',');
    out.push(JSON.stringify(member[0]), ':');
    write(member[1]);
  }
  return out.join('');
}

/**
 * JSON text of a value the host's parser made, as JSON.stringify writes it, except that
 * ±Infinity (which JSON.parse makes of an overflowing literal such as 1e400) is written back as
 * such a literal, so the core answers it as it answers the original text (`invalid_type`). A
 * body nested thousands deep parses (JSON.parse copes) but overflows JSON.stringify's stack; it
 * is written without recursion instead. A cycle (a host's own reviver) throws, as it would.
 */
export function serialiseParsed(body: unknown): string {
  try {
    return withInfinities(JSON.stringify(body, (_key, value: unknown) => markInfinity(value)));
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return withInfinities(serialiseIteratively(body));
  }
}

/**
 * A body the host's parser (express.json, .text or .raw) already read, as bytes again, so that the
 * core's media-type, size and object rules judge it as they judge a raw stream. The Content-Length
 * header still travels with the request, so the size rule is exact whenever the client sent one.
 */
export function hostParsedBody(body: unknown): Body {
  if (body === undefined) return null;
  if (body instanceof Uint8Array) return once(body);
  if (typeof body === 'string') return once(Buffer.from(body));
  return once(Buffer.from(serialiseParsed(body)));
}

/** The host's parser failed on a body it read (body-parser's errors, which Express 4 and 5 share). */
interface ParserError {
  type: string;
  body?: unknown;
  limit?: unknown;
}

function isParserError(error: unknown): error is ParserError {
  return typeof error === 'object' && error !== null && 'type' in error && typeof error.type === 'string';
}

/**
 * body-parser's failed inflate (Content-Encoding gzip, br, deflate): zlib's own error, passed on
 * with status 400 and no `type`. zlib's codes are `Z_...` (gzip, deflate) and `ERR_...` (brotli).
 * Nothing else is taken for one: a host's own 400 under the API's mount stays the host's.
 */
function isInflateFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { status, code, errno } = error as { status?: unknown; code?: unknown; errno?: unknown };
  return status === 400 && typeof errno === 'number' && typeof code === 'string' && /^(?:Z_|ERR_)/.test(code);
}

/**
 * What the core should read after the host's parser failed, so that the API answers in its own
 * envelope and order (docs/contract.md §2: authentication, scope and media type come before the body).
 * Undefined: not a body error of the API's to answer; the host's error handlers get it.
 */
export function bodyAfterParserError(error: unknown, req: IncomingMessage): Body | undefined {
  if (!isParserError(error)) {
    // The bytes are spent; as sent they were no JSON the API reads (it does not decode content
    // codings), so the core meets them as invalid JSON.
    const encoded = (req.headers['content-encoding'] ?? 'identity').toLowerCase() !== 'identity';
    return isInflateFailure(error) && encoded && req.readableDidRead ? failing(errors.invalidJson()) : undefined;
  }
  switch (error.type) {
    case 'charset.unsupported':
    case 'encoding.unsupported':
      // Refused before reading: the contract allows any media-type parameter and reads UTF-8,
      // so the core reads the untouched stream itself.
      return req.readableDidRead ? undefined : req;
    case 'entity.parse.failed':
      return typeof error.body === 'string' ? once(Buffer.from(error.body)) : undefined;
    case 'entity.too.large':
      // The parser drained the bytes; the core meets this error where it would read them.
      return failing(errors.payloadTooLarge(typeof error.limit === 'number' ? error.limit : 0));
    default:
      return undefined;
  }
}
