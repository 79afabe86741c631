import type {
  BlacklistCheckOutcome,
  BlacklistMonitor,
  Claimed,
  ClaimedDelivery,
  ClaimedDevice,
  ClaimRequest,
  DeliveryLease,
  DeliveryOutcome,
  Device,
  DeviceCheckOutcome,
  MonitoringStore,
  RecordedCheck,
  WebhookDeliveryStore,
} from '../core/index.ts';

/**
 * A store that costs next to nothing, for the in-process engine benchmarks: every record it holds
 * is due, a claim takes the next ones off a queue and a write only counts. What those benchmarks
 * compare is the engine's own work (scheduling, checks, write batching) against a bare loop doing
 * the network part alone; the store's cost is measured on its own, on PostgreSQL
 * (bench/engine-cycle.ts). The memory store would not do: its claim sorts every record, which at
 * 10,000 records costs more than the checks.
 */
export class QueueStore implements MonitoringStore, WebhookDeliveryStore {
  readonly #monitors: BlacklistMonitor[];
  readonly #devices: Device[];
  readonly #deliveries: ClaimedDelivery[];
  #lease = 0;
  written = 0;
  /** Result rows written with `ok: false`: a run with any is measuring failures, not checks. */
  failedResults = 0;
  delivered = 0;
  /** Delivery attempts that did not end `delivered`. */
  undelivered = 0;

  constructor(items: { monitors?: BlacklistMonitor[]; devices?: Device[]; deliveries?: ClaimedDelivery[] }) {
    this.#monitors = [...(items.monitors ?? [])].reverse();
    this.#devices = [...(items.devices ?? [])].reverse();
    this.#deliveries = [...(items.deliveries ?? [])].reverse();
  }

  #take<T extends { id: number }>(queue: T[], claim: ClaimRequest): Claimed<T>[] {
    const token = `q${this.#lease++}`;
    const out: Claimed<T>[] = [];
    while (out.length < claim.limit && queue.length > 0) {
      const record = queue.pop()!;
      out.push({
        record,
        lease: { id: record.id, token, owner: claim.owner, expires_at: claim.leaseUntil },
        due_at: claim.now,
      });
    }
    return out;
  }

  async claimDueBlacklistMonitors(claim: ClaimRequest): Promise<Claimed<BlacklistMonitor>[]> {
    return this.#take(this.#monitors, claim);
  }

  async claimDueDevices(claim: ClaimRequest): Promise<ClaimedDevice[]> {
    return this.#take(this.#devices, claim).map((claimed) => ({ ...claimed, consecutive_failures: 0 }));
  }

  async recordBlacklistChecks(checks: readonly RecordedCheck<BlacklistCheckOutcome>[]): Promise<boolean[]> {
    this.written += checks.length;
    for (const { outcome } of checks) this.failedResults += outcome.results.filter((r) => !r.ok).length;
    return checks.map(() => true);
  }

  async recordDeviceChecks(checks: readonly RecordedCheck<DeviceCheckOutcome>[]): Promise<boolean[]> {
    this.written += checks.length;
    for (const { outcome } of checks) this.failedResults += outcome.results.filter((r) => !r.ok).length;
    return checks.map(() => true);
  }

  async setEnabled(): Promise<boolean> {
    return false;
  }

  async deleteCheckResultsBefore(): Promise<number> {
    return 0;
  }

  async fanOutEvents(): Promise<number> {
    return 0;
  }

  async claimDeliveries(claim: { limit: number }): Promise<ClaimedDelivery[]> {
    return this.#deliveries.splice(Math.max(0, this.#deliveries.length - claim.limit)).reverse();
  }

  async recordDeliveryAttempt(_lease: DeliveryLease, outcome: DeliveryOutcome): Promise<boolean> {
    if (outcome.state === 'delivered') this.delivered++;
    else this.undelivered++;
    return true;
  }
}
