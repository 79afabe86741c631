import { Migrator, sql } from 'kysely';
import type { Kysely, Migration, MigrationProvider, MigrationResultSet } from 'kysely';
import { primaryKey, TYPES } from './migrations/column-types.ts';
import { engine } from './migrations/0003-engine.ts';
import { addIdGuard, dropIdGuard } from './migrations/id-guard.ts';
import { webhooks } from './migrations/0004-webhooks.ts';
import { changeMarker } from './migrations/0005-change-marker.ts';
import { dialectOf } from './schema.ts';
import type { Database, StoreDialect } from './schema.ts';

function initial(dialect: StoreDialect): Migration {
  const t = TYPES[dialect];
  return {
    async up(db) {
      await db.schema.createTable('users')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('name', 'text')
        .addColumn('created_at', t.stamp, (c) => c.notNull())
        .execute();

      await db.schema.createTable('api_keys')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text')
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('allowed_ips', 'text', (c) => c.notNull())
        .addColumn('rate_limit', 'text')
        .addColumn('created_at', t.stamp, (c) => c.notNull())
        .addColumn('expires_at', t.stamp)
        .addColumn('revoked_at', t.stamp)
        .addColumn('last_used_at', t.stamp)
        .execute();
      await db.schema.createIndex('api_keys_user_id_id').on('api_keys').columns(['user_id', 'id']).execute();

      await db.schema.createTable('devices')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('target_type', 'text', (c) => c.notNull())
        .addColumn('target_value', 'text', (c) => c.notNull())
        .addColumn('service_type', 'text', (c) => c.notNull())
        .addColumn('scheme', 'text')
        .addColumn('port', 'integer', (c) => c.notNull())
        .addColumn('host_header', 'text')
        .addColumn('proxy_enabled', t.flag, (c) => c.notNull())
        .addColumn('origin_host', 'text')
        .addColumn('origin_scheme', 'text')
        .addColumn('origin_port', 'integer')
        .addColumn('check_public_http', t.flag, (c) => c.notNull())
        .addColumn('check_public_https', t.flag, (c) => c.notNull())
        .addColumn('check_public_tls', t.flag, (c) => c.notNull())
        .addColumn('check_origin_http', t.flag, (c) => c.notNull())
        .addColumn('check_origin_tls', t.flag, (c) => c.notNull())
        .addColumn('expect_status', 'integer')
        .addColumn('location', 'text')
        .addColumn('is_enabled', t.flag, (c) => c.notNull())
        .addColumn('created_at', t.stamp, (c) => c.notNull())
        .execute();
      // The duplicate rule lives in this index so concurrent creates cannot both succeed. Both
      // databases treat NULLs as distinct in a unique index, so a null scheme is folded to ''.
      await sql`create unique index devices_identity on devices
        (user_id, target_type, target_value, service_type, port, (coalesce(scheme, '')))`.execute(db);
      await db.schema.createIndex('devices_user_id_id').on('devices').columns(['user_id', 'id']).execute();

      await db.schema.createTable('blacklist_monitors')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('target_type', 'text', (c) => c.notNull())
        .addColumn('target_value', 'text', (c) => c.notNull())
        .addColumn('is_enabled', t.flag, (c) => c.notNull())
        .addColumn('last_status', 'text')
        .addColumn('last_checked_at', t.stamp)
        .addColumn('listed_on', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('created_at', t.stamp, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('blacklist_monitors_identity').unique().on('blacklist_monitors')
        .columns(['user_id', 'target_type', 'target_value']).execute();
      await db.schema.createIndex('blacklist_monitors_user_id_id').on('blacklist_monitors')
        .columns(['user_id', 'id']).execute();
    },

    async down(db) {
      for (const table of ['blacklist_monitors', 'devices', 'api_keys', 'users']) {
        await db.schema.dropTable(table).execute();
      }
    },
  };
}

const ID_TABLES = ['users', 'api_keys', 'devices', 'blacklist_monitors'] as const;

/**
 * Ids are answered as JSON numbers and accepted up to 2^53-1, so a row past that could be
 * neither read back exactly nor deleted. The insert that would make one fails instead, and
 * nothing of it is kept. PostgreSQL: a check on new rows (NOT VALID leaves rows already there
 * alone). SQLite: a trigger after the insert, when the id is known, aborting the statement.
 */
function safeIds(dialect: StoreDialect): Migration {
  return {
    async up(db) {
      // Adding a check takes each table's strongest lock, briefly. Behind a long transaction it
      // would queue every request behind it (up to the pool's 10 s statement timeout); failing
      // soon, and saying why, is better than that: start again.
      if (dialect === 'postgres') await sql`set local lock_timeout = '2s'`.execute(db);
      for (const table of ID_TABLES) await addIdGuard(db, dialect, table);
    },
    async down(db) {
      for (const table of ID_TABLES) await dropIdGuard(db, dialect, table);
    },
  };
}

/** Every migration, by name; Kysely applies them in name order. */
export function migrations(dialect: StoreDialect): Record<string, Migration> {
  return {
    '0001_initial': initial(dialect),
    '0002_safe_ids': safeIds(dialect),
    '0003_engine': engine(dialect),
    '0004_webhooks': webhooks(dialect),
    '0005_change_marker': changeMarker(dialect),
  };
}

/** The migrations of this package, held in code so no migration folder must ship or be found. */
export class StoreMigrationProvider implements MigrationProvider {
  readonly #dialect: StoreDialect;

  constructor(dialect: StoreDialect) {
    this.#dialect = dialect;
  }

  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations(this.#dialect);
  }
}

/**
 * Brings the schema up to date and returns the names of the migrations it applied ([] when it
 * was current). Throws when a migration fails; on SQLite nothing of a failed run is kept.
 */
export async function migrateToLatest(
  db: Kysely<Database>,
  dialect: StoreDialect = dialectOf(db),
): Promise<string[]> {
  const provider = new StoreMigrationProvider(dialect);
  if (dialect === 'postgres') {
    // Kysely runs PostgreSQL migrations in a transaction under an advisory lock.
    return applied(await new Migrator({ db, provider }).migrateToLatest());
  }
  // Kysely runs SQLite migrations outside any transaction. BEGIN IMMEDIATE takes the write lock
  // up front, so a second process migrating the same file waits (busy_timeout) and then finds
  // the work done, and a failing migration leaves no half-made schema behind.
  return db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const names = applied(await new Migrator({ db: conn, provider }).migrateToLatest());
      await sql`commit`.execute(conn);
      return names;
    } catch (error) {
      await sql`rollback`.execute(conn).catch(() => undefined);
      throw error;
    }
  });
}

function applied(result: MigrationResultSet): string[] {
  if (result.error !== undefined) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName;
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    const which = failed === undefined ? 'database migration' : `database migration ${failed}`;
    throw new Error(`${which} failed: ${reason}`, { cause: result.error });
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
