import type {
  BlacklistCheckOutcome,
  ClaimRequest,
  ClaimedBlacklistMonitor,
  ClaimedDevice,
  DeviceCheckOutcome,
  Lease,
  MonitoredKind,
  RecordedCheck,
} from '../store/monitoring-store.ts';
import type { Device, DeviceLastResults, Timestamp } from '../records/index.ts';
import { claimDue, holds, iso, ms, newSchedule } from './memory-rows.ts';
import type { MemoryTables } from './memory-tables.ts';
import { deviceShown, monitorShown } from '../store/record-changes.ts';

/**
 * The memory store's side of the engine's checks (memory-store.ts): claims under a lease, the
 * written outcomes with their results and events, pauses and resumes, and the results' retention.
 */
export class MemoryChecks {
  readonly #t: MemoryTables;

  constructor(tables: MemoryTables) {
    this.#t = tables;
  }

  async claimDueDevices(claim: ClaimRequest): Promise<ClaimedDevice[]> {
    const token = `m${this.#t.nextId.lease++}`;
    return claimDue(this.#t.devices, claim, token).map((c) => ({
      ...c,
      consecutive_failures: this.#t.devices.get(c.record.id)!.schedule.failures,
    }));
  }

  async claimDueBlacklistMonitors(claim: ClaimRequest): Promise<ClaimedBlacklistMonitor[]> {
    return claimDue(this.#t.monitors, claim, `m${this.#t.nextId.lease++}`).map((claimed) => {
      const row = this.#t.monitors.get(claimed.record.id)!;
      return {
        ...claimed,
        ...(row.maintenanceSince == null ? {} : { maintenance_since: row.maintenanceSince }),
        ...(row.announced == null ? {} : { announced_listed_on: [...row.announced] }),
      };
    });
  }

  async recordDeviceChecks(checks: readonly RecordedCheck<DeviceCheckOutcome>[]): Promise<boolean[]> {
    return checks.map(({ lease, outcome }) => this.#recordDeviceCheck(lease, outcome));
  }

  async recordBlacklistChecks(checks: readonly RecordedCheck<BlacklistCheckOutcome>[]): Promise<boolean[]> {
    return checks.map(({ lease, outcome }) => this.#recordBlacklistCheck(lease, outcome));
  }

  #recordDeviceCheck(lease: Lease, outcome: DeviceCheckOutcome): boolean {
    const row = this.#t.devices.get(lease.id);
    if (!holds(row, lease) || row.record.status !== outcome.previous_status) return false;
    const shown = deviceShown(row.record);
    const checkedAt = iso(outcome.checked_at);
    const last: DeviceLastResults = { ...row.record.last_results };
    for (const result of outcome.results) Object.assign(last, { [result.probe]: structuredClone(result) });
    const { status: previous, status_since: previousSince } = row.record;
    const upSince = row.upSince ?? null;
    // A silent `validating` → `up` gives back the `up` it left (docs/engine.md, "Statuses and transitions").
    if (outcome.status !== previous) {
      row.record.status_since =
        previous === 'validating' && outcome.status === 'up' && upSince !== null ? upSince : checkedAt;
    }
    row.upSince =
      outcome.status !== 'validating'
        ? null
        : previous === 'up'
          ? previousSince
          : previous === 'validating'
            ? upSince
            : null;
    Object.assign(row.record, { status: outcome.status, last_checked_at: checkedAt, last_results: last });
    this.#t.reports.statusChanged(row.userId, row.record, previous, previousSince);
    row.schedule = {
      ...row.schedule,
      nextCheckAt: ms(outcome.next_check_at),
      lease: null,
      failures: outcome.consecutive_failures,
    };
    this.#t.keepResults('device', lease.id, outcome.results);
    this.#t.keepEvents(row.userId, outcome.events);
    if (deviceShown(row.record) !== shown) this.#t.changes.changed('device', lease.id);
    return true;
  }

  #recordBlacklistCheck(lease: Lease, outcome: BlacklistCheckOutcome): boolean {
    const row = this.#t.monitors.get(lease.id);
    if (!holds(row, lease)) return false;
    const since = outcome.maintenance_since == null ? null : iso(outcome.maintenance_since);
    if ((row.maintenanceSince ?? null) !== since) return false;
    if (since === null) row.announced = null;
    const shown = monitorShown(row.record);
    Object.assign(row.record, {
      last_status: outcome.last_status,
      // Stored as every store answers timestamps: ISO 8601 UTC with milliseconds, whatever ISO form came in.
      last_checked_at: iso(outcome.checked_at),
      listed_on: [...outcome.listed_on],
      failed_zones: [...outcome.failed_zones],
      listings: structuredClone(outcome.listings),
      rdns: outcome.rdns,
    });
    this.#t.reports.listingsChanged(row.record);
    row.schedule = { ...row.schedule, nextCheckAt: ms(outcome.next_check_at), lease: null, failures: 0 };
    this.#t.keepResults('blacklist_monitor', lease.id, outcome.results);
    this.#t.keepEvents(row.userId, outcome.events);
    if (monitorShown(row.record) !== shown) this.#t.changes.changed('blacklist_monitor', lease.id);
    return true;
  }

  async setEnabled(kind: MonitoredKind, id: number, enabled: boolean, at: Timestamp): Promise<boolean> {
    const row = this.#t.row(kind, id);
    if (!row) return false;
    const wasEnabled = row.record.is_enabled;
    row.record.is_enabled = enabled;
    if (enabled === wasEnabled) return true;
    row.schedule = { ...newSchedule(enabled, at), checkRequestedAt: row.schedule.checkRequestedAt };
    if (kind === 'device') {
      const device = row.record as Device;
      const { status: previous, status_since: previousSince } = device;
      Object.assign(device, { status: enabled ? 'pending' : 'paused', status_since: iso(at) });
      this.#t.reports.statusChanged(row.userId, device, previous, previousSince);
    }
    this.#t.changes.changed(kind, id);
    return true;
  }

  async deleteCheckResultsBefore(before: Timestamp, limit: number): Promise<number> {
    // Raw results are the rollups' input: none goes before its hour is rolled up.
    const cutoff = Math.min(ms(before), this.#t.reports.rolledUntil);
    let deleted = 0;
    this.#t.results = this.#t.results.filter(({ result }) => {
      if (deleted >= limit || ms(result.checked_at) >= cutoff) return true;
      deleted++;
      return false;
    });
    return deleted;
  }
}
