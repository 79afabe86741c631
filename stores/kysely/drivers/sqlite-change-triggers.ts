import type { DatabaseSync } from 'node:sqlite';
import type { ChangeFeed, ChangedKind } from '../../../core/internal.ts';
import type { ChangeSource } from '../store-context.ts';

/**
 * SQLite's Store.watchChanges (docs/status-pages.md, "Several instances"): one process writes
 * the file (`serve --worker` checks in the API's process), so the store's own writes are all
 * there are to tell. Temporary triggers on the store's one connection call a function of this
 * process for each change of what a public status answer shows, with the same rules as
 * PostgreSQL's (migrations/0020-record-changes.ts): a check that leaves a device's status, its
 * failing locations and its target as they were tells nothing, nor does a ping that leaves a
 * heartbeat's shown state as it was (a run started or ended while it stays up). Temporary, so the file's schema
 * is not touched and another runtime (Bun, which has no application functions) opens it alike.
 * A change told by a statement whose transaction then rolls back costs one needless read.
 */
const TRIGGERS: readonly [table: string, when: string | null, kind: ChangedKind, id: string][] = [
  [
    'devices',
    `old.status is not new.status or old.status_since is not new.status_since or old.is_enabled is not new.is_enabled
      or old.target_value is not new.target_value or old.port is not new.port or old.service_type is not new.service_type
      or old.user_id is not new.user_id
      or monitoring_failing_locations(old.location_states) is not monitoring_failing_locations(new.location_states)`,
    'device',
    'id',
  ],
  [
    'blacklist_monitors',
    `old.last_status is not new.last_status or old.listed_on is not new.listed_on or old.is_enabled is not new.is_enabled
      or old.target_value is not new.target_value or old.user_id is not new.user_id`,
    'blacklist_monitor',
    'id',
  ],
  [
    'heartbeats',
    `(case old.status when 'started' then 'up' else old.status end)
        is not (case new.status when 'started' then 'up' else new.status end)
      or old.is_enabled is not new.is_enabled or old.name is not new.name
      or (old.maintenance_since is null) is not (new.maintenance_since is null) or old.user_id is not new.user_id`,
    'heartbeat',
    'id',
  ],
  ['status_pages', null, 'status_page', 'id'],
  ['status_page_notices', null, 'status_page', 'status_page_id'],
  ['maintenance_windows', null, 'maintenance_window', 'id'],
];

/** The names of the failing locations of a device's `location_states` (JSON), sorted; null for none. */
function failingLocations(states: unknown): string | null {
  if (typeof states !== 'string') return null;
  const parsed = JSON.parse(states) as Record<string, { status?: string }>;
  const failing = Object.keys(parsed)
    .filter((name) => parsed[name]?.status === 'failing')
    .sort();
  return failing.length === 0 ? null : failing.join(',');
}

export function sqliteChangeTriggers(database: DatabaseSync): (feed: ChangeFeed) => ChangeSource {
  return (feed) => {
    let live = false;
    let tried = false;
    return {
      get live() {
        return live;
      },
      start() {
        if (tried) return;
        tried = true;
        try {
          database.function('monitoring_failing_locations', { deterministic: true }, (states) =>
            failingLocations(states),
          );
          database.function('monitoring_changed', (kind, id) => {
            feed.changed(kind as ChangedKind, Number(id));
            return null;
          });
          for (const [table, when, kind, id] of TRIGGERS) {
            const body = (row: 'new' | 'old') => `begin select monitoring_changed('${kind}', ${row}.${id}); end`;
            database.exec(
              `create temp trigger if not exists ${table}_told_insert after insert on main.${table} ${body('new')}`,
            );
            database.exec(
              `create temp trigger if not exists ${table}_told_delete after delete on main.${table} ${body('old')}`,
            );
            database.exec(
              `create temp trigger if not exists ${table}_told_update after update on main.${table}
                ${when === null ? '' : `when ${when}`} ${body('new')}`,
            );
          }
        } catch {
          // A schema not migrated yet: nothing is heard, and status answers are read afresh.
          return;
        }
        live = true;
        feed.hearing(true);
      },
      async close() {
        live = false;
      },
    };
  };
}
