import type { BlacklistCheckOutcome, DeviceCheckOutcome, RecordedCheck } from '../../../core/index.ts';
import { blacklistWrite, deviceWrite, rounds } from './check-writes.ts';
import type { CheckWrite } from './check-writes.ts';
import { writeBlacklistChecksPostgres, writeDeviceChecksPostgres } from './record-checks-postgres.ts';
import { writeBlacklistChecksSqlite, writeDeviceChecksSqlite } from './record-checks-sqlite.ts';
import type { Database, StoreDialect } from '../schema.ts';
import type { Kysely } from 'kysely';

interface Writers<W extends CheckWrite> {
  postgres(db: Kysely<Database>, writes: readonly W[]): Promise<Set<number>>;
  sqlite(trx: Kysely<Database>, writes: readonly W[]): Promise<boolean[]>;
}

/**
 * One batch of checks, in one transaction (docs/engine.md, "Scheduling": a check is written only
 * under the lease it ran with). On PostgreSQL a batch whose records are distinct is a single
 * statement, atomic by itself; a batch naming a record twice runs as rounds in one transaction.
 */
async function recordChecks<W extends CheckWrite>(
  db: Kysely<Database>,
  dialect: StoreDialect,
  writes: readonly W[],
  writers: Writers<W>,
): Promise<boolean[]> {
  if (writes.length === 0) return [];
  if (dialect === 'sqlite') return db.transaction().execute((trx) => writers.sqlite(trx, writes));
  const batches = rounds(writes);
  const run = async (on: Kysely<Database>) => {
    const answers: boolean[] = new Array<boolean>(writes.length).fill(false);
    for (const round of batches) {
      const written = await writers.postgres(
        on,
        round.map(({ write }) => write),
      );
      for (const { index, write } of round) answers[index] = written.has(write.id);
    }
    return answers;
  };
  return batches.length === 1 ? run(db) : db.transaction().execute(run);
}

export function recordDeviceChecks(
  db: Kysely<Database>,
  dialect: StoreDialect,
  checks: readonly RecordedCheck<DeviceCheckOutcome>[],
): Promise<boolean[]> {
  return recordChecks(db, dialect, checks.map(deviceWrite), {
    postgres: writeDeviceChecksPostgres,
    sqlite: writeDeviceChecksSqlite,
  });
}

export function recordBlacklistChecks(
  db: Kysely<Database>,
  dialect: StoreDialect,
  checks: readonly RecordedCheck<BlacklistCheckOutcome>[],
): Promise<boolean[]> {
  return recordChecks(db, dialect, checks.map(blacklistWrite), {
    postgres: writeBlacklistChecksPostgres,
    sqlite: writeBlacklistChecksSqlite,
  });
}
