import type {
  ApiKey, BlacklistCheckResult, BlacklistMonitor, Device, NewApiKey, NewBlacklistMonitor,
  NewDevice, Timestamp, User,
} from './records.ts';
import type { CreateResult, PageRequest, Store } from './store.ts';

interface Owned<T> {
  userId: number;
  record: T;
}

function deviceIdentity(userId: number, d: NewDevice): string {
  return JSON.stringify([userId, d.target_type, d.target_value, d.service_type, d.port, d.scheme]);
}

function monitorIdentity(userId: number, m: NewBlacklistMonitor): string {
  return JSON.stringify([userId, m.target_type, m.target_value]);
}

function page<T extends { id: number }>(rows: Map<number, Owned<T>>, userId: number, req: PageRequest): T[] {
  const out: T[] = [];
  // Map iteration follows insertion order, which is ascending id order here.
  for (const [id, row] of rows) {
    if (id <= req.afterId || row.userId !== userId) continue;
    out.push(structuredClone(row.record));
    if (out.length >= req.limit) break;
  }
  return out;
}

/**
 * A store in this process's memory: for tests, examples and embedding without a database.
 * It returns copies, so callers cannot change what it holds.
 */
export class MemoryStore implements Store {
  #nextId = { user: 1, key: 1, device: 1, monitor: 1 };
  readonly #users = new Map<number, User>();
  readonly #keys = new Map<number, ApiKey & { token_hash: string }>();
  readonly #devices = new Map<number, Owned<Device>>();
  readonly #deviceIndex = new Map<string, number>();
  readonly #monitors = new Map<number, Owned<BlacklistMonitor>>();
  readonly #monitorIndex = new Map<string, number>();

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

  async createDevice(userId: number, device: NewDevice): Promise<CreateResult<Device>> {
    const identity = deviceIdentity(userId, device);
    const existing = this.#deviceIndex.get(identity);
    if (existing !== undefined) return { duplicateOf: existing };
    const record: Device = { id: this.#nextId.device++, ...structuredClone(device) };
    this.#devices.set(record.id, { userId, record });
    this.#deviceIndex.set(identity, record.id);
    return { created: structuredClone(record) };
  }

  async listDevices(userId: number, req: PageRequest): Promise<Device[]> {
    return page(this.#devices, userId, req);
  }

  async deleteDevice(userId: number, id: number): Promise<boolean> {
    const row = this.#devices.get(id);
    if (!row || row.userId !== userId) return false;
    this.#devices.delete(id);
    this.#deviceIndex.delete(deviceIdentity(userId, row.record));
    return true;
  }

  async createBlacklistMonitor(userId: number, monitor: NewBlacklistMonitor): Promise<CreateResult<BlacklistMonitor>> {
    const identity = monitorIdentity(userId, monitor);
    const existing = this.#monitorIndex.get(identity);
    if (existing !== undefined) return { duplicateOf: existing };
    const record: BlacklistMonitor = { id: this.#nextId.monitor++, ...structuredClone(monitor) };
    this.#monitors.set(record.id, { userId, record });
    this.#monitorIndex.set(identity, record.id);
    return { created: structuredClone(record) };
  }

  async listBlacklistMonitors(userId: number, req: PageRequest): Promise<BlacklistMonitor[]> {
    return page(this.#monitors, userId, req);
  }

  async deleteBlacklistMonitor(userId: number, id: number): Promise<boolean> {
    const row = this.#monitors.get(id);
    if (!row || row.userId !== userId) return false;
    this.#monitors.delete(id);
    this.#monitorIndex.delete(monitorIdentity(userId, row.record));
    return true;
  }

  async recordBlacklistCheck(id: number, result: BlacklistCheckResult): Promise<boolean> {
    const row = this.#monitors.get(id);
    if (!row) return false;
    // Stored as every store answers timestamps: ISO 8601 UTC with milliseconds, whatever ISO form came in.
    Object.assign(row.record, structuredClone(result), { last_checked_at: new Date(result.last_checked_at).toISOString() });
    return true;
  }

  async close(): Promise<void> {}
}

function publicKey(stored: ApiKey & { token_hash: string }): ApiKey {
  const { token_hash: _hash, ...key } = structuredClone(stored);
  return key;
}
