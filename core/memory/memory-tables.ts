import type { Clock } from '../clock.ts';
import type { MonitoredKind } from '../store/monitoring-store.ts';
import type {
  BlacklistMonitor,
  CheckResult,
  Device,
  MonitoringEvent,
  NewCheckResult,
  NewMonitoringEvent,
  Timestamp,
} from '../records/index.ts';
import type { RollupInput } from '../reports/rollups.ts';
import { MemoryReports, rollupInputOf } from './memory-reports.ts';
import { iso, type Owned } from './memory-rows.ts';
import { ChangeFeed } from '../store/record-changes.ts';

export interface StoredResult {
  kind: MonitoredKind;
  resourceId: number;
  result: CheckResult;
}

/**
 * What the parts of the memory store (memory-store.ts) share, as a database's tables are shared by
 * its queries: the monitored records, their check results, the event outbox and the reports kept
 * from their status changes. Only the store's parts hold it; callers see copies.
 */
export class MemoryTables {
  readonly nextId = { device: 1, monitor: 1, result: 1, check: 1, lease: 1, event: 1, window: 1 };
  readonly devices = new Map<number, Owned<Device>>();
  /** Each device's duplicate identity (memory-rows.ts), to its id. */
  readonly deviceIndex = new Map<string, number>();
  readonly monitors = new Map<number, Owned<BlacklistMonitor>>();
  readonly monitorIndex = new Map<string, number>();
  /** Every check result, in id order. */
  results: StoredResult[] = [];
  /** The event outbox, in id order. */
  readonly events: MonitoringEvent[] = [];
  /** Reports (memory-reports.ts): told of every status and listings change where the store makes it. */
  readonly reports: MemoryReports;
  /** Who watches what public status answers show (Store.watchChanges): told by the parts as they write. */
  readonly changes = new ChangeFeed();
  /** The store's own clock, which stamps heartbeats as a database's clock would. */
  readonly clock: Clock;
  /**
   * The parts whose records keep `channel_ids` outside these tables (the heartbeats'): a channel's
   * delete takes its id out of their lists too.
   */
  readonly channelListHolders: { dropChannel(userId: number, channelId: number): void }[] = [];

  constructor(clock: Clock) {
    this.clock = clock;
    this.reports = new MemoryReports(clock.now());
  }

  /** The row of a device or a blacklist monitor, whoever owns it. */
  row(kind: MonitoredKind, id: number): Owned<Device> | Owned<BlacklistMonitor> | undefined {
    return kind === 'device' ? this.devices.get(id) : this.monitors.get(id);
  }

  /** The raw device results a rollup reads, checked in [from, to), of one device or all. */
  rollupInput(range: { from: Timestamp; to: Timestamp }, deviceId?: number): RollupInput[] {
    return rollupInputOf(this.results, range, deviceId);
  }

  keepResults(kind: MonitoredKind, resourceId: number, results: readonly NewCheckResult[]): void {
    const checkId = this.nextId.check++;
    for (const result of results) {
      const stored = {
        ...structuredClone(result),
        id: this.nextId.result++,
        check_id: checkId,
        checked_at: iso(result.checked_at),
        // This store keeps no schedule per location: every check is from any one location.
        check_location: null,
      } as CheckResult;
      this.results.push({ kind, resourceId, result: stored });
    }
  }

  keepEvents(userId: number, events: readonly NewMonitoringEvent[]): void {
    for (const event of events) {
      this.events.push({
        ...structuredClone(event),
        id: this.nextId.event++,
        user_id: userId,
        created_at: iso(event.created_at),
      });
    }
  }

  dropResults(kind: MonitoredKind, resourceId: number): void {
    this.results = this.results.filter((r) => r.kind !== kind || r.resourceId !== resourceId);
  }
}
