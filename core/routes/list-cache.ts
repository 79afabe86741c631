import { JSON_CONTENT_TYPE, type ApiResponse } from '../http/api-response.ts';

interface Entry {
  marker: string;
  body: string;
  /**
   * The body as UTF-8, encoded at the first reuse rather than by the adapter for every answer: an
   * answer that is never asked again (a range that moves) costs no encoding, and one asked often
   * is encoded once (large answers, a year's series, cost more to encode than to find).
   */
  bytes: Uint8Array<ArrayBuffer> | undefined;
  link: string | undefined;
}

const encoder = new TextEncoder();

/** Answers larger than this are not kept: the cache is for the many small pages a dashboard polls. */
const MAX_BODY = 256 * 1024;
/** All kept answers together (in UTF-16 code units, about bytes for this JSON, and their UTF-8 once encoded). */
const MAX_TOTAL = 16 * 1024 * 1024;

/**
 * List answers kept under the store's change marker (see `Store.changeMarker`). An entry is used
 * only while the marker is unchanged, and the marker is read before the store is, so an entry can
 * be older than the data only in the direction that makes it miss. Bounded in entries and size.
 */
export class ListCache {
  readonly #entries = new Map<string, Entry>();
  #total = 0;
  private readonly maxEntries: number;
  constructor(maxEntries = 1_000) {
    this.maxEntries = maxEntries;
  }

  #drop(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#total -= entry.body.length + (entry.bytes?.byteLength ?? 0);
    this.#entries.delete(key);
  }

  get(key: string, marker: string): ApiResponse | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.marker !== marker) {
      this.#drop(key);
      return undefined;
    }
    // The fields in the order of the first answer: link (when there is one), then content-type.
    const headers: Record<string, string> = entry.link === undefined ? {} : { link: entry.link };
    headers['content-type'] = JSON_CONTENT_TYPE;
    if (entry.bytes === undefined) {
      entry.bytes = encoder.encode(entry.body);
      // Counted from now on; the bound is checked at the next `set`, which makes room first.
      this.#total += entry.bytes.byteLength;
    }
    return { status: 200, headers, body: entry.body, bodyLength: entry.bytes.byteLength, bodyBytes: entry.bytes };
  }

  set(key: string, marker: string, response: ApiResponse): void {
    if (typeof response.body !== 'string' || response.body.length > MAX_BODY) return;
    this.#drop(key);
    // Oldest first out: a Map keeps insertion order.
    while (
      this.#entries.size > 0 &&
      (this.#entries.size >= this.maxEntries || this.#total + response.body.length > MAX_TOTAL)
    ) {
      this.#drop(this.#entries.keys().next().value!);
    }
    this.#entries.set(key, { marker, body: response.body, bytes: undefined, link: response.headers.link });
    this.#total += response.body.length;
  }
}
