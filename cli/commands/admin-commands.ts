import { KeyAdmin, KeyAdminError, type ApiKey, type Store } from '../../core/index.ts';
import { databaseUrl, openMigrated } from './database.ts';
import { cidrs, futureDate, list, positiveInt, rateLimit, readFlags, scopes, text } from '../flags.ts';
import type { CliIo } from '../io.ts';
import { UsageError } from '../usage-error.ts';

const writeLine = (io: CliIo) => (line: string) => io.stdout(`${line}\n`);

/** Runs an admin action on the migrated store named by --database, closing it afterwards. */
async function withAdmin<T>(
  io: CliIo,
  database: string | undefined,
  action: (admin: KeyAdmin, store: Store) => Promise<T>,
): Promise<T> {
  const opened = await openMigrated(databaseUrl(database, io.env));
  try {
    return await action(new KeyAdmin(opened.store), opened.store);
  } finally {
    await opened.store.close();
  }
}

export async function migrate(args: readonly string[], io: CliIo): Promise<void> {
  const { flags } = readFlags(args, { database: { type: 'string' } }, 'migrate');
  const opened = await openMigrated(databaseUrl(text(flags, 'database'), io.env));
  await opened.store.close();
  writeLine(io)(opened.applied.length === 0 ? 'schema is up to date' : `applied ${opened.applied.join(', ')}`);
}

export async function createUser(args: readonly string[], io: CliIo): Promise<void> {
  const out = writeLine(io);
  const spec = { name: { type: 'string' }, json: { type: 'boolean' }, database: { type: 'string' } } as const;
  const { flags } = readFlags(args, spec, 'users create');
  const user = await withAdmin(io, text(flags, 'database'), (admin) =>
    admin.createUser({ name: text(flags, 'name') ?? null }),
  );
  out(flags.json ? JSON.stringify({ user_id: user.id }) : `created user ${user.id}`);
}

function requiredUser(flags: Record<string, unknown>, command: string): number {
  const user = flags.user;
  if (typeof user !== 'string') throw new UsageError(`${command} needs --user ID`);
  return positiveInt(user, '--user');
}

export async function createKey(args: readonly string[], io: CliIo): Promise<void> {
  const out = writeLine(io);
  const { flags } = readFlags(
    args,
    {
      user: { type: 'string' },
      scopes: { type: 'string' },
      'allow-ip': { type: 'string', multiple: true },
      name: { type: 'string' },
      'rate-limit': { type: 'string' },
      expires: { type: 'string' },
      json: { type: 'boolean' },
      database: { type: 'string' },
    },
    'keys create',
  );
  const limit = text(flags, 'rate-limit');
  const expires = text(flags, 'expires');
  const input = {
    userId: requiredUser(flags, 'keys create'),
    scopes: scopes(text(flags, 'scopes') ?? 'read,write'),
    allowedIps: cidrs(list(flags, 'allow-ip'), '--allow-ip'),
    name: text(flags, 'name') ?? null,
    rateLimit: limit === undefined ? null : rateLimit(limit),
    expiresAt: expires === undefined ? null : futureDate(expires, Date.now()),
  };
  const { key, token } = await withAdmin(io, text(flags, 'database'), (admin) => admin.createApiKey(input));
  if (flags.json) {
    out(
      JSON.stringify({ key_id: key.id, user_id: key.user_id, token, scopes: key.scopes, allowed_ips: key.allowed_ips }),
    );
  } else {
    out(`created key ${key.id} for user ${key.user_id} (scopes ${key.scopes.join(', ')})`);
    out(`API key (shown once, keep it now): ${token}`);
  }
}

function state(key: ApiKey, now: number): string {
  if (key.revoked_at !== null) return `revoked ${key.revoked_at}`;
  if (key.expires_at === null) return 'active';
  return Date.parse(key.expires_at) <= now ? `expired ${key.expires_at}` : `expires ${key.expires_at}`;
}

function describe(key: ApiKey, now: number): string {
  const limit = key.rate_limit ? ` limit ${key.rate_limit.limit}/${key.rate_limit.windowSeconds}s` : '';
  const ips = key.allowed_ips.length ? ` from ${key.allowed_ips.join(' ')}` : '';
  return `${key.id}\t${key.name ?? '-'}\t${key.scopes.join(',')}\t${state(key, now)}${limit}${ips}\tlast used ${key.last_used_at ?? 'never'}`;
}

export async function listKeys(args: readonly string[], io: CliIo): Promise<void> {
  const out = writeLine(io);
  const spec = { user: { type: 'string' }, json: { type: 'boolean' }, database: { type: 'string' } } as const;
  const { flags } = readFlags(args, spec, 'keys list');
  const userId = requiredUser(flags, 'keys list');
  const keys = await withAdmin(io, text(flags, 'database'), async (admin, store) => {
    // An empty list would read as "this user has no keys" when there is no such user at all.
    if ((await store.getUser(userId)) === undefined) throw new KeyAdminError(`no user with id ${userId}`);
    return admin.listApiKeys(userId);
  });
  if (flags.json) {
    // snake_case like every other field name this package prints.
    const shown = keys.map(({ rate_limit, ...key }) => ({
      ...key,
      rate_limit: rate_limit && { limit: rate_limit.limit, window_seconds: rate_limit.windowSeconds },
    }));
    out(JSON.stringify({ keys: shown }));
  } else if (keys.length === 0) out(`user ${userId} has no keys`);
  else for (const key of keys) out(describe(key, Date.now()));
}

/** Exit code 1 (not 2): the call was well-formed, the key just cannot be revoked. */
export async function revokeKey(args: readonly string[], io: CliIo): Promise<void> {
  const out = writeLine(io);
  const spec = { json: { type: 'boolean' }, database: { type: 'string' } } as const;
  const { flags, positionals } = readFlags(args, spec, 'keys revoke', 1);
  if (positionals[0] === undefined) throw new UsageError('keys revoke needs the key id');
  const id = positiveInt(positionals[0], 'the key id');
  const revoked = await withAdmin(io, text(flags, 'database'), async (admin, store) => {
    const done = await admin.revokeApiKey(id);
    const key = await store.getApiKey(id);
    if (done && key !== undefined) return key;
    throw new KeyAdminError(
      key === undefined ? `no key with id ${id}` : `key ${id} was revoked already (${key.revoked_at})`,
    );
  });
  out(
    flags.json
      ? JSON.stringify({ key_id: revoked.id, user_id: revoked.user_id, revoked_at: revoked.revoked_at })
      : `revoked key ${id}`,
  );
}
