import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { StoreDialect } from '../schema.ts';

/**
 * Migration 0020 (PostgreSQL): every committed change of what a public status answer shows is
 * notified on the channel `monitoring_changes` as `<kind>:<id>` (stores/kysely/drivers/
 * pg-change-listener.ts), by whichever process or session writes it (docs/status-pages.md,
 * "Several instances"). NOTIFY is delivered at commit, never for a rolled-back write, and one
 * transaction's equal payloads are delivered once.
 *
 * - a device when its status, status_since, is_enabled, target, owner or set of failing locations
 *   changes: a check that changes none of them (the most of them) notifies nothing;
 * - a blacklist monitor when its last status, zones listed on, is_enabled, target or owner changes;
 * - a heartbeat when its status (`started` being `up` there), is_enabled, name, owner, or whether
 *   a maintenance window holds it changes: a ping that starts or ends a run of a heartbeat that
 *   stays up (the most of them) notifies nothing;
 * - a status page on any change of its row, and of any of its notices (as the page);
 * - a maintenance window on any change.
 *
 * SQLite needs none of this: one process writes, and the store tells of its own writes.
 */
export function recordChanges(dialect: StoreDialect): Migration {
  return {
    async up(db) {
      if (dialect !== 'postgres') return;
      await sql`set local lock_timeout = '2s'`.execute(db);
      await sql`create function monitoring_failing_locations(states text) returns text
        language sql immutable as $$
          select string_agg(key, ',' order by key) from jsonb_each(states::jsonb) where value->>'status' = 'failing'
        $$`.execute(db);
      await sql`create function notify_device_change() returns trigger language plpgsql as $$
        begin
          if tg_op = 'UPDATE'
            and (old.status, old.status_since, old.is_enabled, old.target_value, old.port, old.service_type, old.user_id)
              is not distinct from
              (new.status, new.status_since, new.is_enabled, new.target_value, new.port, new.service_type, new.user_id)
            and monitoring_failing_locations(old.location_states)
              is not distinct from monitoring_failing_locations(new.location_states) then
            return null;
          end if;
          perform pg_notify('monitoring_changes', 'device:' || coalesce(new.id, old.id));
          return null;
        end $$`.execute(db);
      await sql`create function notify_blacklist_monitor_change() returns trigger language plpgsql as $$
        begin
          if tg_op = 'UPDATE'
            and (old.last_status, old.listed_on, old.is_enabled, old.target_value, old.user_id)
              is not distinct from (new.last_status, new.listed_on, new.is_enabled, new.target_value, new.user_id) then
            return null;
          end if;
          perform pg_notify('monitoring_changes', 'blacklist_monitor:' || coalesce(new.id, old.id));
          return null;
        end $$`.execute(db);
      await sql`create function notify_heartbeat_change() returns trigger language plpgsql as $$
        begin
          if tg_op = 'UPDATE'
            and (case old.status when 'started' then 'up' else old.status end, old.is_enabled, old.name,
                old.maintenance_since is null, old.user_id)
              is not distinct from
              (case new.status when 'started' then 'up' else new.status end, new.is_enabled, new.name,
                new.maintenance_since is null, new.user_id) then
            return null;
          end if;
          perform pg_notify('monitoring_changes', 'heartbeat:' || coalesce(new.id, old.id));
          return null;
        end $$`.execute(db);
      await sql`create function notify_status_page_change() returns trigger language plpgsql as $$
        begin
          perform pg_notify('monitoring_changes', 'status_page:' || coalesce(new.id, old.id));
          return null;
        end $$`.execute(db);
      await sql`create function notify_notice_change() returns trigger language plpgsql as $$
        begin
          perform pg_notify('monitoring_changes', 'status_page:' || coalesce(new.status_page_id, old.status_page_id));
          return null;
        end $$`.execute(db);
      await sql`create function notify_maintenance_window_change() returns trigger language plpgsql as $$
        begin
          perform pg_notify('monitoring_changes', 'maintenance_window:' || coalesce(new.id, old.id));
          return null;
        end $$`.execute(db);
      const triggers: [string, string][] = [
        ['devices', 'notify_device_change'],
        ['blacklist_monitors', 'notify_blacklist_monitor_change'],
        ['heartbeats', 'notify_heartbeat_change'],
        ['status_pages', 'notify_status_page_change'],
        ['status_page_notices', 'notify_notice_change'],
        ['maintenance_windows', 'notify_maintenance_window_change'],
      ];
      for (const [table, fn] of triggers) {
        await sql`create trigger ${sql.id(`${table}_notify_change`)} after insert or update or delete on ${sql.table(table)}
          for each row execute function ${sql.id(fn)}()`.execute(db);
      }
    },
  };
}
