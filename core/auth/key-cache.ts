import type { ApiKey } from '../records/index.ts';
import type { Store } from '../store/store.ts';
import { hashToken } from './token.ts';

interface Entry {
  key: ApiKey;
  loadedAt: number;
}

/**
 * Verified keys, so the hot path skips both hashing and the store. Entries are found by the
 * presented token itself: the process holds that token in memory for the request anyway, and a
 * hit then costs one map look-up. A key revoked through this process is forgotten at once; one
 * revoked elsewhere (another instance, the CLI) is seen within `ttlMs`. Unknown tokens are never
 * cached, so guessing cannot fill the cache.
 */
export class KeyCache {
  readonly #entries = new Map<string, Entry>();
  /** Look-ups under way, so concurrent first requests with one token cost one store read. */
  readonly #loading = new Map<string, Promise<ApiKey | undefined>>();
  /** Counts forget() calls, so that a look-up can tell whether a revocation overtook it. */
  #generation = 0;
  private readonly store: Store;
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(store: Store, ttlMs: number, maxEntries = 10_000) {
    this.store = store;
    this.ttlMs = ttlMs;
    this.maxEntries = maxEntries;
  }

  /** The key for a token when a fresh entry is cached: no I/O. */
  peek(token: string, now: number): ApiKey | undefined {
    const cached = this.#entries.get(token);
    return cached !== undefined && now - cached.loadedAt < this.ttlMs ? cached.key : undefined;
  }

  /** Whether a store read for this token is under way. */
  isLoading(token: string): boolean {
    return this.#loading.has(token);
  }

  /**
   * Reads the key for a token from the store (once, however many requests wait for it) and caches
   * it. `beforeRead` runs first, for the request that starts the read only; when it throws, the
   * store is not read and every waiting request sees that error. The read is registered before
   * `beforeRead` is awaited, so requests arriving meanwhile wait on it instead of starting their own.
   */
  load(token: string, now: number, beforeRead?: () => Promise<void>): Promise<ApiKey | undefined> {
    const pending = this.#loading.get(token);
    if (pending !== undefined) return pending;
    const loading: Promise<ApiKey | undefined> = this.#load(token, now, beforeRead).finally(() => {
      // forget() may have replaced this look-up with a newer one meanwhile: leave that one be.
      if (this.#loading.get(token) === loading) this.#loading.delete(token);
    });
    this.#loading.set(token, loading);
    return loading;
  }

  async #load(token: string, now: number, beforeRead: (() => Promise<void>) | undefined): Promise<ApiKey | undefined> {
    if (beforeRead !== undefined) await beforeRead();
    const generation = this.#generation;
    const key = await this.store.findApiKeyByHash(await hashToken(token));
    if (key === undefined) {
      this.#entries.delete(token);
      return undefined;
    }
    // A revocation landed while the store was being read: the row may predate it, so it answers
    // only the requests that were already waiting and is not cached (else the revoked key would
    // be accepted for another ttlMs; test/hardening/auth.test.ts).
    if (this.ttlMs > 0 && generation === this.#generation) {
      // Oldest first out: Map keeps insertion order, and a refreshed entry is re-inserted.
      if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
      this.#entries.delete(token);
      this.#entries.set(token, { key, loadedAt: now });
    }
    return key;
  }

  forget(keyId: number): void {
    this.#generation++;
    for (const [token, entry] of this.#entries) if (entry.key.id === keyId) this.#entries.delete(token);
    // A request that arrives after the revocation must read the store anew rather than join a
    // look-up that began before it. Revocations are rare, so all pending look-ups are dropped.
    this.#loading.clear();
  }
}
