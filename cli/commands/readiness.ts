import type { OpenedKyselyStore } from '../../stores/kysely/index.ts';
import { pendingMigrations } from '../../stores/kysely/migrations.ts';
import type { ReadinessCheck } from '../server/health.ts';

/** Ready while the database answers and has every migration of this version applied. */
export function databaseReadiness(opened: Pick<OpenedKyselyStore, 'db' | 'dialect'>): ReadinessCheck {
  return async () => (await pendingMigrations(opened.db, opened.dialect)).length === 0;
}
