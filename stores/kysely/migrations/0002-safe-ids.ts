import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { StoreDialect } from '../schema.ts';
import { addIdGuard, dropIdGuard } from './id-guard.ts';

const ID_TABLES = ['users', 'api_keys', 'devices', 'blacklist_monitors'] as const;

/**
 * Ids are answered as JSON numbers and accepted up to 2^53-1, so a row past that could be
 * neither read back exactly nor deleted. The insert that would make one fails instead, and
 * nothing of it is kept. PostgreSQL: a check on new rows (NOT VALID leaves rows already there
 * alone). SQLite: a trigger after the insert, when the id is known, aborting the statement.
 */
export function safeIds(dialect: StoreDialect): Migration {
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
