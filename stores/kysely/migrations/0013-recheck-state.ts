import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { StoreDialect } from '../schema.ts';
import { TYPES } from './column-types.ts';

/**
 * Migration 0013: what the re-check rule needs to remember (docs/engine.md, "Statuses and
 * transitions" and "Checking a device from several locations"); forward only.
 *
 * - `devices.up_since`: while a device that was `up` is `validating`, when that `up` began. A
 *   failure that is not confirmed gives the device back its `status_since` from it, so a silent
 *   `validating` → `up` does not restart the time it has been up. Null in every other case, and
 *   for every existing device (one `validating` when this runs comes back up dated afresh).
 * - `device_location_checks.failures`: the location's failed checks in a row, which make it count
 *   as failing toward the quorum only once the re-check rule is met. A location whose last result
 *   failed when this runs starts at one.
 *
 * Neither column is shown by any answer, and every write that changes `up_since` changes `status`
 * too, so the change marker's trigger (migration 0005) is left as it is.
 */
export function recheckState(dialect: StoreDialect): Migration {
  const t = TYPES[dialect];
  return {
    async up(db) {
      if (dialect === 'postgres') await sql`set local lock_timeout = '2s'`.execute(db);
      await db.schema.alterTable('devices').addColumn('up_since', t.stamp).execute();
      await db.schema
        .alterTable('device_location_checks')
        .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      const failed = dialect === 'postgres' ? sql`last_ok = false` : sql`last_ok = 0`;
      await sql`update device_location_checks set failures = 1 where ${failed}`.execute(db);
    },

    async down() {
      throw new Error('migration 0013_recheck_state cannot be undone');
    },
  };
}
