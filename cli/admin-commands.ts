import { KeyAdmin, type ApiKey } from '../core/index.ts';
import { databaseUrl, openMigrated } from './database.ts';
import { cidrs, futureDate, list, positiveInt, rateLimit, readFlags, scopes, text } from './flags.ts';
import { UsageError } from './usage-error.ts';

const out = (line: string) => process.stdout.write(`${line}\n`);

/** Runs an admin action on the migrated store named by --database, closing it afterwards. */
async function withAdmin<T>(database: string | undefined, action: (admin: KeyAdmin) => Promise<T>): Promise<T> {
  const opened = await openMigrated(databaseUrl(database));
  try {
    return await action(new KeyAdmin(opened.store));
  } finally {
    await opened.store.close();
  }
}

export async function migrate(args: readonly string[]): Promise<void> {
  const { flags } = readFlags(args, { database: { type: 'string' } });
  const opened = await openMigrated(databaseUrl(text(flags, 'database')));
  await opened.store.close();
  out(opened.applied.length === 0 ? 'schema is up to date' : `applied ${opened.applied.join(', ')}`);
}

export async function createUser(args: readonly string[]): Promise<void> {
  const { flags } = readFlags(args, { name: { type: 'string' }, json: { type: 'boolean' }, database: { type: 'string' } });
  const user = await withAdmin(text(flags, 'database'), (admin) => admin.createUser({ name: text(flags, 'name') ?? null }));
  out(flags.json ? JSON.stringify({ user_id: user.id }) : `created user ${user.id}`);
}

export async function createKey(args: readonly string[]): Promise<void> {
  const { flags } = readFlags(args, {
    user: { type: 'string' }, scopes: { type: 'string' }, 'allow-ip': { type: 'string', multiple: true },
    name: { type: 'string' }, 'rate-limit': { type: 'string' }, expires: { type: 'string' },
    json: { type: 'boolean' }, database: { type: 'string' },
  });
  const user = text(flags, 'user');
  if (user === undefined) throw new UsageError('keys create needs --user ID');
  const userId = positiveInt(user, '--user');
  const input = {
    userId,
    scopes: scopes(text(flags, 'scopes') ?? 'read,write'),
    allowedIps: cidrs(list(flags, 'allow-ip'), '--allow-ip'),
    name: text(flags, 'name') ?? null,
    rateLimit: text(flags, 'rate-limit') === undefined ? null : rateLimit(text(flags, 'rate-limit')!),
    expiresAt: text(flags, 'expires') === undefined ? null : futureDate(text(flags, 'expires')!, Date.now()),
  };
  const { key, token } = await withAdmin(text(flags, 'database'), (admin) => admin.createApiKey(input));
  if (flags.json) {
    out(JSON.stringify({ key_id: key.id, user_id: key.user_id, token, scopes: key.scopes, allowed_ips: key.allowed_ips }));
  } else {
    out(`created key ${key.id} for user ${key.user_id} (scopes ${key.scopes.join(', ')})`);
    out(`API key (shown once, keep it now): ${token}`);
  }
}

function describe(key: ApiKey): string {
  const state = key.revoked_at ? `revoked ${key.revoked_at}` : key.expires_at ? `expires ${key.expires_at}` : 'active';
  const limit = key.rate_limit ? ` limit ${key.rate_limit.limit}/${key.rate_limit.windowSeconds}s` : '';
  const ips = key.allowed_ips.length ? ` from ${key.allowed_ips.join(' ')}` : '';
  return `${key.id}\t${key.name ?? '-'}\t${key.scopes.join(',')}\t${state}${limit}${ips}\tlast used ${key.last_used_at ?? 'never'}`;
}

export async function listKeys(args: readonly string[]): Promise<void> {
  const { flags } = readFlags(args, { user: { type: 'string' }, json: { type: 'boolean' }, database: { type: 'string' } });
  const user = text(flags, 'user');
  if (user === undefined) throw new UsageError('keys list needs --user ID');
  const keys = await withAdmin(text(flags, 'database'), (admin) => admin.listApiKeys(positiveInt(user, '--user')));
  if (flags.json) {
    // snake_case like every other field name this package prints.
    const shown = keys.map(({ rate_limit, ...key }) => ({
      ...key, rate_limit: rate_limit && { limit: rate_limit.limit, window_seconds: rate_limit.windowSeconds },
    }));
    out(JSON.stringify({ keys: shown }));
  }
  else if (keys.length === 0) out(`user ${user} has no keys`);
  else for (const key of keys) out(describe(key));
}

/** Exit code 1 (not 2): the call was well-formed, the key just cannot be revoked. */
export async function revokeKey(args: readonly string[]): Promise<number> {
  const { flags, positionals } = readFlags(args, { database: { type: 'string' } }, 1);
  if (positionals[0] === undefined) throw new UsageError('keys revoke needs the key id');
  const id = positiveInt(positionals[0], 'the key id');
  const revoked = await withAdmin(text(flags, 'database'), (admin) => admin.revokeApiKey(id));
  if (!revoked) {
    process.stderr.write(`monitoring-api: no active key with id ${id}\n`);
    return 1;
  }
  out(`revoked key ${id}`);
  return 0;
}

