import { Migrator, sql } from 'kysely';
import type { Kysely, Migration, MigrationProvider, MigrationResultSet } from 'kysely';
import { initial } from './migrations/0001-initial.ts';
import { safeIds } from './migrations/0002-safe-ids.ts';
import { engine } from './migrations/0003-engine.ts';
import { webhooks } from './migrations/0004-webhooks.ts';
import { changeMarker } from './migrations/0005-change-marker.ts';
import { manage } from './migrations/0006-manage.ts';
import { operations } from './migrations/0007-operations.ts';
import { dnsblListings } from './migrations/0008-dnsbl-listings.ts';
import { locations } from './migrations/0010-locations.ts';
import { reports } from './migrations/0011-reports.ts';
import { timelineTotals } from './migrations/0012-timeline-totals.ts';
import { recheckState } from './migrations/0013-recheck-state.ts';
import { channels } from './migrations/0014-channels.ts';
import { heartbeats } from './migrations/0015-heartbeats.ts';
import { statusPages } from './migrations/0016-status-pages.ts';
import { notifications } from './migrations/0017-notifications.ts';
import { acknowledgements } from './migrations/0018-acknowledgements.ts';
import { heartbeatChannels } from './migrations/0019-heartbeat-channels.ts';
import { recordChanges } from './migrations/0020-record-changes.ts';
import { notificationReach } from './migrations/0021-notification-reach.ts';
import { dialectOf } from './schema.ts';
import type { Database, StoreDialect } from './schema.ts';

/** Every migration, by name; Kysely applies them in name order. */
export function migrations(dialect: StoreDialect): Record<string, Migration> {
  return {
    '0001_initial': initial(dialect),
    '0002_safe_ids': safeIds(dialect),
    '0003_engine': engine(dialect),
    '0004_webhooks': webhooks(dialect),
    '0005_change_marker': changeMarker(dialect),
    '0006_manage': manage(dialect),
    '0007_operations': operations(dialect),
    '0008_dnsbl_listings': dnsblListings(dialect),
    '0010_locations': locations(dialect),
    '0011_reports': reports(dialect),
    '0012_timeline_totals': timelineTotals(dialect),
    '0013_recheck_state': recheckState(dialect),
    '0014_channels': channels(dialect),
    '0015_heartbeats': heartbeats(dialect),
    '0016_status_pages': statusPages(dialect),
    '0017_notifications': notifications(dialect),
    '0018_acknowledgements': acknowledgements(dialect),
    '0019_heartbeat_channels': heartbeatChannels(dialect),
    '0020_record_changes': recordChanges(dialect),
    '0021_notification_reach': notificationReach(dialect),
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
export async function migrateToLatest(db: Kysely<Database>, dialect: StoreDialect = dialectOf(db)): Promise<string[]> {
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

/**
 * The migrations of this package the database has not applied, by name ([] when its schema is
 * current). Reads Kysely's migration table only, and never creates it: a readiness probe must
 * not write. Throws when the database cannot be asked (unreachable, or never migrated at all).
 */
export async function pendingMigrations(
  db: Kysely<Database>,
  dialect: StoreDialect = dialectOf(db),
): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  const done = new Set(rows.map((row) => row.name));
  return Object.keys(migrations(dialect)).filter((name) => !done.has(name));
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
