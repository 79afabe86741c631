import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { StoreDialect } from '../schema.ts';
import { primaryKey, TYPES } from './column-types.ts';

/** Migration 0001: users, API keys, devices and blacklist monitors, with their duplicate rules. */
export function initial(dialect: StoreDialect): Migration {
  const t = TYPES[dialect];
  return {
    async up(db) {
      await db.schema
        .createTable('users')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('name', 'text')
        .addColumn('created_at', t.stamp, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('api_keys')
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

      await db.schema
        .createTable('devices')
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

      await db.schema
        .createTable('blacklist_monitors')
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
      await db.schema
        .createIndex('blacklist_monitors_identity')
        .unique()
        .on('blacklist_monitors')
        .columns(['user_id', 'target_type', 'target_value'])
        .execute();
      await db.schema
        .createIndex('blacklist_monitors_user_id_id')
        .on('blacklist_monitors')
        .columns(['user_id', 'id'])
        .execute();
    },

    async down(db) {
      for (const table of ['blacklist_monitors', 'devices', 'api_keys', 'users']) {
        await db.schema.dropTable(table).execute();
      }
    },
  };
}
