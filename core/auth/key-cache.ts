import type { ApiKey } from '../records.ts';
import type { Store } from '../store.ts';
import { hashToken } from './token.ts';

interface Entry {
  key: ApiKey;
  loadedAt: number;
}

/**
 * Verified keys by token hash, so the hot path skips the store. A key revoked through this
 * process is forgotten at once; one revoked elsewhere (another instance, the CLI) is seen within
 * `ttlMs`. Unknown tokens are never cached, so guessing cannot fill the cache.
 */
export class KeyCache {
  readonly #entries = new Map<string, Entry>();
  constructor(
    private readonly store: Store,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  async lookup(token: string, now: number): Promise<ApiKey | undefined> {
    const hash = await hashToken(token);
    const cached = this.#entries.get(hash);
    if (cached !== undefined && now - cached.loadedAt < this.ttlMs) return cached.key;
    const key = await this.store.findApiKeyByHash(hash);
    if (key === undefined) {
      this.#entries.delete(hash);
      return undefined;
    }
    if (this.ttlMs > 0) {
      if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
      this.#entries.delete(hash);
      this.#entries.set(hash, { key, loadedAt: now });
    }
    return key;
  }

  forget(keyId: number): void {
    for (const [hash, entry] of this.#entries) if (entry.key.id === keyId) this.#entries.delete(hash);
  }
}
