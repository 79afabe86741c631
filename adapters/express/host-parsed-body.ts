import type { IncomingMessage } from 'node:http';
import { errors } from '../../core/http/api-error.ts';

/** What the core reads as the request body; null for none. */
export type Body = AsyncIterable<Uint8Array> | null;

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** A body the core meets as unreadable where it would read it, after the steps before (auth, scope). */
async function* failing(error: Error): AsyncIterable<Uint8Array> {
  throw error;
}

type Container = { keys: null; items: unknown[]; next: number } | { keys: string[]; items: Record<string, unknown>; next: number };

/**
 * JSON text of a value `JSON.parse` made, without recursion: a body nested thousands deep parses
 * (body-parser's JSON.parse copes) and must not overflow the stack on the way back. ±Infinity,
 * which JSON.parse makes of an overflowing literal such as 1e400, is written back as such a
 * literal, so the core answers it as it answers the original text (`invalid_type`).
 */
export function serialiseParsed(root: unknown): string {
  const out: string[] = [];
  const open: Container[] = [];
  const write = (value: unknown, key: string): void => {
    // A host's reviver may have made objects with toJSON (a Date); JSON.stringify would call it.
    while (typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      value = (value as { toJSON(key: string): unknown }).toJSON(key);
    }
    if (Array.isArray(value)) {
      out.push('[');
      open.push({ keys: null, items: value, next: 0 });
    } else if (typeof value === 'object' && value !== null) {
      out.push('{');
      const items = value as Record<string, unknown>;
      open.push({ keys: Object.keys(items).filter((name) => items[name] !== undefined), items, next: 0 });
    } else if (typeof value === 'number' && !Number.isFinite(value)) {
      out.push(Number.isNaN(value) ? 'null' : value > 0 ? '1e400' : '-1e400');
    } else {
      out.push(JSON.stringify(value) ?? 'null');
    }
  };
  write(root, '');
  while (open.length > 0) {
    const top = open[open.length - 1]!;
    if (top.keys === null) {
      if (top.next === top.items.length) {
        out.push(']');
        open.pop();
        continue;
      }
      if (top.next > 0) out.push(',');
      const index = top.next++;
      write(top.items[index], String(index));
    } else {
      if (top.next === top.keys.length) {
        out.push('}');
        open.pop();
        continue;
      }
      if (top.next > 0) out.push(',');
      const name = top.keys[top.next++]!;
      out.push(JSON.stringify(name), ':');
      write(top.items[name], name);
    }
  }
  return out.join('');
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

function statusOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { status?: unknown }).status : undefined;
}

/**
 * What the core should read after the host's parser failed, so that the API answers in its own
 * envelope and order (contract §2: authentication, scope and media type come before the body).
 * Undefined: not a body error of the API's to answer; the host's error handlers get it.
 */
export function bodyAfterParserError(error: unknown, req: IncomingMessage): Body | undefined {
  if (!isParserError(error)) {
    // body-parser passes a failed inflate (Content-Encoding gzip, br, deflate) on as a 400 with
    // no type. The bytes are spent; as sent they were no JSON the API reads (it does not
    // decode content codings), so the core meets them as invalid JSON.
    const encoded = (req.headers['content-encoding'] ?? 'identity').toLowerCase() !== 'identity';
    return statusOf(error) === 400 && encoded && req.readableDidRead ? failing(errors.invalidJson()) : undefined;
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
