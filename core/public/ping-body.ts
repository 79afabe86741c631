import type { ApiRequest } from '../http/api-request.ts';

/** The bytes of a ping's body kept with it (docs/heartbeats.md, "Pings"), sent as `Ping-Body-Limit`. */
export const PING_BODY_KEPT = 10_000;
/** The largest body a ping may send: 1 MB. Larger is 413; anything up to it is read and cut. */
export const PING_BODY_LIMIT = 1_000_000;

/** Thrown when a ping's body is larger than PING_BODY_LIMIT. */
export class PingBodyTooLarge extends Error {
  override readonly name = 'PingBodyTooLarge';
}

/** Thrown when the client went away or its stream broke before its body ended. */
export class PingBodyUnreadable extends Error {
  override readonly name = 'PingBodyUnreadable';
}

const UTF8 = new TextDecoder('utf-8');

/**
 * A ping's body as text: its first PING_BODY_KEPT bytes, decoded as UTF-8 (a character the cut
 * splits is dropped whole, and bytes that are not UTF-8 read as U+FFFD), without NUL characters
 * (which PostgreSQL text cannot hold); null when empty. The rest is read and dropped, up to
 * PING_BODY_LIMIT: a larger body, by its Content-Length or as it arrives, throws PingBodyTooLarge
 * without being read further.
 */
export async function readPingBody(request: ApiRequest): Promise<string | null> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > PING_BODY_LIMIT) throw new PingBodyTooLarge();
  if (request.body === null) return null;
  // Made at the first byte: most pings are GETs whose body, though a stream, holds nothing.
  let kept: Uint8Array | undefined;
  let size = 0;
  try {
    for await (const chunk of request.body) {
      if (chunk.byteLength === 0) continue;
      kept ??= new Uint8Array(PING_BODY_KEPT);
      const room = PING_BODY_KEPT - Math.min(size, PING_BODY_KEPT);
      if (room > 0) kept.set(chunk.subarray(0, room), size);
      size += chunk.byteLength;
      if (size > PING_BODY_LIMIT) throw new PingBodyTooLarge();
    }
  } catch (error) {
    if (error instanceof PingBodyTooLarge) throw error;
    throw new PingBodyUnreadable('reading a ping body failed', { cause: error });
  }
  if (kept === undefined) return null;
  let end = Math.min(size, PING_BODY_KEPT);
  // A multi-byte character cut by the limit is dropped rather than read as U+FFFD.
  if (size > PING_BODY_KEPT) end = characterBoundary(kept, end);
  // eslint-disable-next-line no-control-regex -- NUL is what it removes
  return UTF8.decode(kept.subarray(0, end)).replace(/\u0000/g, '');
}

/** The end at or before `end` that does not split a UTF-8 sequence. */
function characterBoundary(bytes: Uint8Array, end: number): number {
  let start = end;
  // Back over continuation bytes (10xxxxxx) to the lead byte of the last sequence.
  while (start > 0 && start > end - 4 && (bytes[start - 1]! & 0xc0) === 0x80) start--;
  if (start === 0) return end;
  const lead = bytes[start - 1]!;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return end - (start - 1) >= length ? end : start - 1;
}
