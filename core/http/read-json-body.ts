import { ApiError } from './api-error.ts';
import { errors } from './errors.ts';
import type { ApiRequest } from './api-request.ts';
import { NON_INTEGER_LITERAL, nonIntegerMembers } from './integer-literals.ts';
import { isJsonMediaType } from './json-media-type.ts';

/** Decoding without `stream` keeps no state between calls, so one decoder serves every request. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a JSON object body under docs/contract.md §4: the media type first, then the size (from
 * Content-Length when given, and while reading in any case, so nothing past the limit is buffered),
 * then strict UTF-8 and JSON.
 */
export async function readJsonObject(request: ApiRequest, limit: number): Promise<Record<string, unknown>> {
  if (!isJsonMediaType(request.headers.get('content-type'))) throw errors.invalidContentType();
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) throw errors.payloadTooLarge(limit);

  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body !== null) {
    try {
      for await (const chunk of request.body) {
        size += chunk.byteLength;
        if (size > limit) throw errors.payloadTooLarge(limit);
        chunks.push(chunk);
      }
    } catch (error) {
      if (error instanceof ApiError) throw error;
      // The client went away or the stream broke mid-body: its request, not the server, failed.
      throw errors.bodyUnreadable(error);
    }
  }
  let text: string;
  try {
    text = UTF8.decode(concat(chunks, size));
  } catch {
    throw errors.invalidJson();
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Also catches a RangeError from pathological nesting: the answer is the same.
    throw errors.invalidJson();
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw errors.invalidJson();
  const body = value as Record<string, unknown>;
  // No field of the API takes a fractional number: one written with a fraction or an exponent is
  // refused as the wrong type even when its value is whole (docs/contract.md §4: JSON integers).
  // Only a member whose value parsed as a number can be one, and most bodies have none (the two
  // required fields are strings), so the text is read only when there is such a member.
  if (hasNumberMember(body) && /[.eE]/.test(text)) {
    for (const name of nonIntegerMembers(text)) {
      if (typeof body[name] === 'number') body[name] = NON_INTEGER_LITERAL;
    }
  }
  return body;
}

function hasNumberMember(body: Record<string, unknown>): boolean {
  for (const name in body) if (typeof body[name] === 'number') return true;
  return false;
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
