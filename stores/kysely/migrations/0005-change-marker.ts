import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { StoreDialect } from '../schema.ts';

/**
 * Every column of devices and blacklist_monitors but the lease's, which claims set and no answer
 * shows. A column added to either table later must be added to its trigger in that migration.
 */
const DEVICE_COLUMNS = [
  'user_id',
  'target_type',
  'target_value',
  'service_type',
  'scheme',
  'port',
  'host_header',
  'proxy_enabled',
  'origin_host',
  'origin_scheme',
  'origin_port',
  'check_public_http',
  'check_public_https',
  'check_public_tls',
  'check_origin_http',
  'check_origin_tls',
  'expect_status',
  'location',
  'is_enabled',
  'created_at',
  'check_interval_s',
  'status',
  'status_since',
  'last_checked_at',
  'last_results',
  'consecutive_failures',
  'next_check_at',
];
const MONITOR_COLUMNS = [
  'user_id',
  'target_type',
  'target_value',
  'is_enabled',
  'last_status',
  'last_checked_at',
  'listed_on',
  'created_at',
  'check_interval_s',
  'failed_zones',
  'next_check_at',
];

/**
 * PostgreSQL's change marker (KyselyStore.changeMarker): a count of committed writes to what the
 * lists show, kept by triggers in the writing transaction itself, so it moves for every writer
 * (other instances, the engine, psql) exactly when the write becomes visible. Forward only.
 *
 * Each database session counts in a row of its own (keyed by backend pid), so concurrent writers
 * never wait on one another's row lock and a transaction never holds the lock of a row another
 * may want: no contention, no deadlock. The marker is the sum, which only grows, and of two
 * snapshots the later sees every commit the earlier saw, so an equal sum means the same data.
 * Rows are never deleted: one per backend pid ever used, a few hundred at most in practice.
 *
 * SQLite needs none of this: `PRAGMA data_version` says the same for free.
 */
export function changeMarker(dialect: StoreDialect): Migration {
  return {
    async up(db) {
      if (dialect !== 'postgres') return;
      await sql`create table change_counts (backend integer primary key, writes bigint not null)`.execute(db);
      await sql`create function count_change() returns trigger language plpgsql as $$
        begin
          insert into change_counts (backend, writes) values (pg_backend_pid(), 1)
            on conflict (backend) do update set writes = change_counts.writes + 1;
          return null;
        end $$`.execute(db);
      // Statement triggers: a batch of engine results moves the count once, not once per row.
      const columns = (names: string[]) => sql.join(names.map((name) => sql.id(name)));
      await sql`create trigger devices_count_change after insert or delete or update of ${columns(DEVICE_COLUMNS)}
        on devices for each statement execute function count_change()`.execute(db);
      await sql`create trigger blacklist_monitors_count_change after insert or delete or update of ${columns(MONITOR_COLUMNS)}
        on blacklist_monitors for each statement execute function count_change()`.execute(db);
      await sql`create trigger webhooks_count_change after insert or delete or update
        on webhooks for each statement execute function count_change()`.execute(db);
    },
  };
}
