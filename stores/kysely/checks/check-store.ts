import type { Selectable } from 'kysely';
import type {
  BlacklistCheckOutcome,
  CheckRequestResult,
  CheckResult,
  ClaimedBlacklistMonitor,
  ClaimedDevice,
  ClaimedLocationCheck,
  ClaimRequest,
  DeviceCheckOutcome,
  LocationCheckOutcome,
  LocationClaimRequest,
  LocationDecider,
  LocationSummary,
  MonitoredKind,
  RecordedCheck,
  ResultsPage,
  Timestamp,
  WorkerHeartbeat,
} from '../../../core/index.ts';
import { deviceFromRow, monitorFromRow, toStamp } from '../rows.ts';
import type { BlacklistMonitorsTable, DevicesTable } from '../schema.ts';
import type { StoreContext } from '../store-context.ts';
import { deleteCheckResultsBefore, listCheckResults } from './check-results.ts';
import { claimDueLocationChecks } from './location-claims.ts';
import { recordLocationCheck, requestLocationChecks, setLocationsEnabled } from './location-checks.ts';
import { recordBlacklistChecks, recordDeviceChecks } from './record-checks.ts';
import { claimDue, requestCheck, setEnabled } from './schedule.ts';
import { listLocations, recordHeartbeat } from './worker-heartbeats.ts';

/**
 * The checks of devices and monitors: requests, claims, results and their written outcome, per
 * location too, and the workers' heartbeats. Claims change only leases, and heartbeats and
 * locations no answer a list shows, so those are not counted as writes.
 */
export class CheckRecords {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  // A request moves next_check_at, which no list shows; the marker moves anyway (the trigger
  // names the column), which costs a list a fresh read, not a stale answer.
  requestCheck(
    userId: number,
    kind: MonitoredKind,
    id: number,
    at: Timestamp,
    minGapMs: number,
  ): Promise<CheckRequestResult> {
    const dialect = this.#ctx.dialect;
    return this.#ctx.write(async (db) => {
      // A device checked per location is due at each of its locations, its own row at none.
      const found =
        kind === 'device'
          ? await db.transaction().execute(async (trx) => {
              const asked = await requestCheck(trx, dialect, 'devices', userId, id, at, minGapMs);
              if (asked.outcome === 'due' && asked.row.check_locations !== null) {
                await requestLocationChecks(trx, id, at);
              }
              return asked;
            })
          : await requestCheck(db, dialect, 'blacklist_monitors', userId, id, at, minGapMs);
      if (found.outcome !== 'due') return found;
      return {
        outcome: 'due',
        record:
          kind === 'device'
            ? deviceFromRow(found.row as Selectable<DevicesTable>)
            : monitorFromRow(found.row as Selectable<BlacklistMonitorsTable>),
      };
    });
  }

  listCheckResults(
    userId: number,
    kind: MonitoredKind,
    id: number,
    page: ResultsPage,
  ): Promise<CheckResult[] | undefined> {
    return this.#ctx.run((db) => listCheckResults(db, userId, kind, id, page));
  }

  claimDueDevices(claim: ClaimRequest): Promise<ClaimedDevice[]> {
    return this.#ctx.run(async (db) =>
      (await claimDue(db, this.#ctx.dialect, 'devices', claim)).map(({ row, lease, due_at }) => ({
        record: deviceFromRow(row),
        lease,
        due_at,
        consecutive_failures: row.consecutive_failures,
      })),
    );
  }

  claimDueBlacklistMonitors(claim: ClaimRequest): Promise<ClaimedBlacklistMonitor[]> {
    return this.#ctx.run(async (db) =>
      (await claimDue(db, this.#ctx.dialect, 'blacklist_monitors', claim)).map(({ row, lease, due_at }) => ({
        record: monitorFromRow(row),
        lease,
        due_at,
        // Only when a window has a part in the check, so a claim outside one reads as before.
        ...(row.maintenance_since == null ? {} : { maintenance_since: toStamp(row.maintenance_since) }),
        ...(row.announced_listed_on == null
          ? {}
          : { announced_listed_on: JSON.parse(row.announced_listed_on) as string[] }),
      })),
    );
  }

  recordDeviceChecks(checks: readonly RecordedCheck<DeviceCheckOutcome>[]): Promise<boolean[]> {
    return this.#ctx.write((db) => recordDeviceChecks(db, this.#ctx.dialect, checks));
  }

  recordBlacklistChecks(checks: readonly RecordedCheck<BlacklistCheckOutcome>[]): Promise<boolean[]> {
    return this.#ctx.write((db) => recordBlacklistChecks(db, this.#ctx.dialect, checks));
  }

  setEnabled(kind: MonitoredKind, id: number, enabled: boolean, at: Timestamp): Promise<boolean> {
    return this.#ctx.write(async (db) => {
      const found = await setEnabled(db, this.#ctx.dialect, kind, id, enabled, at);
      if (found && kind === 'device') await setLocationsEnabled(db, id, enabled, at);
      return found;
    });
  }

  /** Counted as a write when rows went: a response-time series shows raw results in the hours its range cuts. */
  deleteCheckResultsBefore(before: Timestamp, limit: number): Promise<number> {
    return this.#ctx.changedReports(
      this.#ctx.run((db) => deleteCheckResultsBefore(db, this.#ctx.dialect, before, limit)),
    );
  }

  claimDueLocationChecks(claim: LocationClaimRequest): Promise<ClaimedLocationCheck[]> {
    return this.#ctx.run((db) => claimDueLocationChecks(db, this.#ctx.dialect, claim));
  }

  recordLocationCheck(check: RecordedCheck<LocationCheckOutcome>, decide: LocationDecider): Promise<boolean> {
    return this.#ctx.write((db) => recordLocationCheck(db, this.#ctx.dialect, check, decide));
  }

  recordHeartbeat(heartbeat: WorkerHeartbeat): Promise<void> {
    return this.#ctx.run((db) => recordHeartbeat(db, this.#ctx.dialect, heartbeat));
  }

  listLocations(): Promise<LocationSummary[]> {
    return this.#ctx.run((db) => listLocations(db, this.#ctx.dialect));
  }
}
