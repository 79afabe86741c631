import { compress, type Encoding } from './encodings.ts';

// The public answers a process keeps (docs/architecture.md, "Caches"): each page's bodies by what
// they show, with their ETag and their compressed forms, made at most once for each content. An
// answer read again with the same content is sent as kept; bounded in bytes, the one used longest
// ago out first, so a service with many pages keeps the ones being read.

interface Kept {
  /** The kept view it was written from (status-keeper.ts), or 0. */
  serial: number;
  etag: string;
  plain: Uint8Array<ArrayBuffer>;
  encoded: Partial<Record<Encoding, Promise<Uint8Array<ArrayBuffer>>>>;
  /** The answers of each encoding made so far (null: as text), sent again as they are. */
  ready: Partial<Record<Encoding | 'plain', KeptBody>>;
  /** Bytes held: the text and each compressed form, once made. */
  bytes: number;
}

/** What an answer sends: its ETag and its body in the encoding asked (null: as text). */
export interface KeptBody {
  etag: string;
  body: Uint8Array<ArrayBuffer>;
  encoding: Encoding | null;
}

const encoder = new TextEncoder();
/** Bodies smaller than this go as they are: compressing them saves less than its headers cost. */
const MIN_COMPRESSED = 1024;

/** A weak ETag of the text: its SHA-256, the same whatever the encoding (RFC 9110 §8.8.1). */
async function etagOf(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  let text = '';
  for (const byte of digest.subarray(0, 16)) text += byte.toString(16).padStart(2, '0');
  return `W/"${text}"`;
}

export class StatusAnswers {
  readonly #entries = new Map<string, Kept>();
  readonly #maxBytes: number;
  #total = 0;
  /** The entry last moved to the end of #entries. */
  #last: Kept | undefined;

  constructor(maxBytes = 32 * 1024 * 1024) {
    this.#maxBytes = maxBytes;
  }

  /**
   * The body kept for `key` when it was written from the kept view `serial` (status-keeper.ts), in
   * `encoding`; undefined when there is none: the answer is to be written (`body`).
   */
  kept(key: string, serial: number, encoding: Encoding | null): KeptBody | Promise<KeptBody> | undefined {
    const kept = this.#entries.get(key);
    if (kept === undefined || serial === 0 || kept.serial !== serial) return undefined;
    const ready = kept.ready[this.#chosen(kept, encoding) ?? 'plain'];
    if (ready === undefined) return this.#answer(key, kept, encoding);
    this.#used(key, kept);
    return ready;
  }

  /**
   * The body `text` is answered with for `key` (a page, how it is addressed, and what is asked),
   * written from the view `serial`, in `encoding`: the kept one when the text is the same as
   * kept, else made and kept.
   */
  async body(key: string, text: string, encoding: Encoding | null, serial = 0): Promise<KeptBody> {
    const plain = encoder.encode(text);
    const etag = await etagOf(plain);
    let kept = this.#entries.get(key);
    if (kept?.etag !== etag) {
      this.#drop(key);
      kept = { serial, etag, plain, encoded: {}, ready: {}, bytes: plain.byteLength };
      this.#total += kept.bytes;
    }
    kept.serial = serial;
    return this.#answer(key, kept, encoding);
  }

  async #answer(key: string, kept: Kept, encoding: Encoding | null): Promise<KeptBody> {
    const { etag } = kept;
    this.#used(key, kept);
    let body = kept.plain;
    const chosen = this.#chosen(kept, encoding);
    if (chosen !== null) {
      let encoded = kept.encoded[chosen];
      if (encoded === undefined) {
        const entry = kept;
        kept.encoded[chosen] = encoded = compress(kept.plain, chosen);
        encoded.then(
          (bytes) => {
            entry.bytes += bytes.byteLength;
            if (this.#entries.get(key) === entry) this.#total += bytes.byteLength;
            this.#bound();
          },
          () => delete entry.encoded[chosen],
        );
      }
      body = await encoded;
    }
    this.#bound();
    const answer: KeptBody = { etag, body, encoding: chosen };
    kept.ready[chosen ?? 'plain'] = answer;
    return answer;
  }

  /** The encoding `kept` is sent in when `encoding` is asked: none for a body too small to gain. */
  #chosen(kept: Kept, encoding: Encoding | null): Encoding | null {
    return encoding !== null && kept.plain.byteLength >= MIN_COMPRESSED ? encoding : null;
  }

  /** Used now: last out (it is already when it was the last used: most requests read one page). */
  #used(key: string, kept: Kept): void {
    if (this.#last === kept) return;
    this.#entries.delete(key);
    this.#entries.set(key, kept);
    this.#last = kept;
  }

  #drop(key: string): void {
    const kept = this.#entries.get(key);
    if (kept === undefined) return;
    this.#total -= kept.bytes;
    this.#entries.delete(key);
  }

  #bound(): void {
    while (this.#total > this.#maxBytes && this.#entries.size > 1) this.#drop(this.#entries.keys().next().value!);
  }
}
