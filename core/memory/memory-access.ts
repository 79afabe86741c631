import type { ApiKey, NewApiKey, Timestamp, User } from '../records/index.ts';

/** The memory store's users and API keys (memory-store.ts): who may call, and with what. */
export class MemoryAccess {
  #nextId = { user: 1, key: 1 };
  readonly #users = new Map<number, User>();
  readonly #keys = new Map<number, ApiKey & { token_hash: string }>();

  async createUser(user: Omit<User, 'id'>): Promise<User> {
    const record = { id: this.#nextId.user++, ...user };
    this.#users.set(record.id, record);
    return { ...record };
  }

  async getUser(id: number): Promise<User | undefined> {
    const user = this.#users.get(id);
    return user && { ...user };
  }

  async createApiKey(key: NewApiKey): Promise<ApiKey> {
    if (!this.#users.has(key.user_id)) throw new Error(`no user ${key.user_id}`);
    const stored = { ...structuredClone(key), id: this.#nextId.key++, revoked_at: null, last_used_at: null };
    this.#keys.set(stored.id, stored);
    return publicKey(stored);
  }

  async findApiKeyByHash(tokenHash: string): Promise<ApiKey | undefined> {
    for (const key of this.#keys.values()) if (key.token_hash === tokenHash) return publicKey(key);
    return undefined;
  }

  async getApiKey(id: number): Promise<ApiKey | undefined> {
    const key = this.#keys.get(id);
    return key && publicKey(key);
  }

  async listApiKeys(userId: number): Promise<ApiKey[]> {
    return [...this.#keys.values()].filter((k) => k.user_id === userId).map(publicKey);
  }

  async revokeApiKey(id: number, at: Timestamp): Promise<boolean> {
    const key = this.#keys.get(id);
    if (!key || key.revoked_at !== null) return false;
    key.revoked_at = at;
    return true;
  }

  async recordKeyUsage(usage: ReadonlyMap<number, Timestamp>): Promise<void> {
    for (const [id, at] of usage) {
      const key = this.#keys.get(id);
      if (key && (key.last_used_at === null || key.last_used_at < at)) key.last_used_at = at;
    }
  }
}

function publicKey(stored: ApiKey & { token_hash: string }): ApiKey {
  const { token_hash: _hash, ...key } = structuredClone(stored);
  return key;
}
