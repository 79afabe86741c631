import type { Claimed, ClaimRequest, Clock, MonitoredKind, RecordedCheck } from '../../core/index.ts';
import type { EngineLogger } from '../logger.ts';
import type { CheckVerdict, EngineMetrics } from '../metrics.ts';
import { isOurFailure } from '../our-failures.ts';
import type { CheckSummary } from './check-summary.ts';
import type { Slots } from './slots.ts';
import { WriteBuffer, type WriteTally } from './write-buffer.ts';

/**
 * What a runner checks: a kind of record, the (device, location) pairs of this worker's location,
 * or heartbeats past their deadline (docs/heartbeats.md, "Lateness").
 */
export type RunnerName = MonitoredKind | 'device location' | 'heartbeat';

/** The kind metrics and the summary count a runner's records under. */
export type CountedKind = MonitoredKind | 'heartbeat';

/** What the scheduler reads of any check's outcome: one result per probe or zone. */
export interface CheckOutcomeLike {
  results: readonly { probe: string; ok: boolean; error: string | null }[];
}

/** A result's verdict: passed, failed on the target's side, or on the worker's own. */
function verdictOf(result: { ok: boolean; error: string | null }): CheckVerdict {
  if (result.ok) return 'ok';
  return isOurFailure(result.error) ? 'ours' : 'failed';
}

/** A check's verdict: the worker's when any result is, else failed when any result failed. */
function checkVerdict(outcome: CheckOutcomeLike): CheckVerdict {
  let verdict: CheckVerdict = 'ok';
  for (const result of outcome.results) {
    const one = verdictOf(result);
    if (one === 'ours') return 'ours';
    if (one === 'failed') verdict = 'failed';
  }
  return verdict;
}

/**
 * One kind of record as the scheduler sees it: how it is claimed, checked and recorded. Devices
 * and blacklist monitors each plug in as one of these; the scheduling is the same for both.
 */
export interface CheckKind<C extends Claimed<unknown>, O extends CheckOutcomeLike> {
  readonly name: RunnerName;
  claim(request: ClaimRequest): Promise<C[]>;
  /**
   * Checks one claimed record. `leaseUntilMs` is when its lease runs out (the engine's clock): a
   * check may wait for a slot after its claim, so its time is counted from the claim.
   */
  check(claimed: C, leaseUntilMs: number): Promise<O>;
  record(checks: readonly RecordedCheck<O>[]): Promise<boolean[]>;
}

export interface RunnerSettings {
  owner: string;
  clock: Clock;
  leaseMs: number;
  writeBatchSize: number;
  writeDelayMs: number;
  slots: Slots;
  logger: EngineLogger;
  tally: WriteTally & { claimed: number; crashed: number };
  /** The period's counts, for the worker's summary line. */
  summary: CheckSummary;
  metrics: EngineMetrics;
}

/** What the engine drives, whatever the kind. */
export interface Runner {
  readonly name: RunnerName;
  readonly kind: CountedKind;
  readonly unwritten: number;
  readonly held: number;
  claimAndStart(limit: number, dueByMs?: number): Promise<number>;
  drain(): Promise<void>;
}

/** Claims, checks and records one kind; the engine drives it. */
export class KindRunner<C extends Claimed<unknown>, O extends CheckOutcomeLike> implements Runner {
  readonly name: RunnerName;
  /** The kind of record checked, as metrics and the summary count it: a location's check is a device's. */
  readonly kind: CountedKind;
  readonly #kind: CheckKind<C, O>;
  readonly #settings: RunnerSettings;
  readonly #buffer: WriteBuffer<O>;
  /** Records claimed and not yet written, fenced or given up. */
  #held = 0;

  constructor(kind: CheckKind<C, O>, settings: RunnerSettings) {
    this.name = kind.name;
    this.kind = kind.name === 'device location' ? 'device' : kind.name;
    this.#kind = kind;
    this.#settings = settings;
    const { metrics } = settings;
    this.#buffer = new WriteBuffer<O>({
      kind: kind.name,
      write:
        metrics.written === undefined
          ? (checks) => kind.record(checks)
          : async (checks) => {
              const started = performance.now();
              try {
                const written = await kind.record(checks);
                metrics.written!(this.kind, checks.length, performance.now() - started, false);
                return written;
              } catch (error) {
                metrics.written!(this.kind, checks.length, performance.now() - started, true);
                throw error;
              }
            },
      size: settings.writeBatchSize,
      delayMs: settings.writeDelayMs,
      logger: settings.logger,
      tally: settings.tally,
      onWritten: () => settings.slots.wake(),
      onOutcome: (batch, written) => {
        this.#held -= batch.length;
        if (written instanceof Error) return settings.summary.lost(batch.length);
        for (let i = 0; i < batch.length; i++) {
          if (written[i] !== true) continue;
          const { outcome } = batch[i]!;
          const verdict = checkVerdict(outcome);
          settings.summary.written(this.kind, verdict);
          if (metrics.checked === undefined) continue;
          metrics.checked(
            this.kind,
            verdict,
            outcome.results.map((r) => ({ probe: r.probe, verdict: verdictOf(r) })),
          );
        }
      },
    });
  }

  /** Records claimed and not yet written or given up: the leases this runner holds. */
  get held(): number {
    return this.#held;
  }

  /** Finished checks not yet written: the claim loop holds back while the store lags behind. */
  get unwritten(): number {
    return this.#buffer.unwritten;
  }

  /**
   * Claims up to `limit` records due by `dueByMs` (default now) and starts checking each (a slot
   * apiece); says how many it claimed. The lease runs from now, whatever `dueByMs` is. Rejects
   * only when the claim itself fails.
   */
  async claimAndStart(limit: number, dueByMs?: number): Promise<number> {
    const nowMs = this.#settings.clock.now();
    const leaseUntilMs = nowMs + this.#settings.leaseMs;
    const started = performance.now();
    const claimed = await this.#kind.claim({
      owner: this.#settings.owner,
      now: new Date(Math.min(dueByMs ?? nowMs, nowMs)).toISOString(),
      limit,
      leaseUntil: new Date(leaseUntilMs).toISOString(),
    });
    this.#settings.metrics.claimed?.(this.kind, claimed.length, performance.now() - started);
    if (claimed.length === 0) return 0;
    this.#settings.tally.claimed += claimed.length;
    this.#held += claimed.length;
    this.#logLag(nowMs, claimed);
    // Each starts now if a slot is free, else as soon as one is (slots.ts).
    for (const record of claimed) this.#settings.slots.run(() => this.#start(record, leaseUntilMs));
    return claimed.length;
  }

  /** Writes every finished check; call once no check is in flight. */
  drain(): Promise<void> {
    return this.#buffer.drain();
  }

  /** Runs one check in the slot `slots.run` took for it, and gives the slot back when it ends. */
  #start(claimed: C, leaseUntilMs: number): void {
    const slots = this.#settings.slots;
    let checking: Promise<O>;
    try {
      checking = this.#kind.check(claimed, leaseUntilMs);
    } catch (error) {
      // A check (a host's own device check) that throws before its promise: the same bug as a rejection.
      checking = Promise.reject(error);
    }
    // A check that throws is a bug, not a result: logged, and its lease lapses so it is retried.
    checking
      .then(
        (outcome) => this.#buffer.add({ lease: claimed.lease, outcome }),
        (error: unknown) => {
          this.#settings.tally.crashed++;
          this.#held--;
          this.#settings.summary.lost(1);
          // The id stays out of the message, so that one failure repeated is logged once (bounded-logger.ts).
          this.#settings.logger.error?.(`checking a ${this.name} failed unexpectedly`, error);
        },
      )
      .finally(() => slots.release());
  }

  /**
   * Scheduling lag: how late each claimed check starts, counted for the summary and logged per
   * batch at debug level (a busy worker claims many batches a second).
   */
  #logLag(nowMs: number, claimed: readonly C[]): void {
    const log = this.#settings.logger.debug;
    const observe = this.#settings.metrics.lag;
    let max = 0;
    let sum = 0;
    for (const { due_at } of claimed) {
      const lag = Math.max(0, nowMs - Date.parse(due_at));
      this.#settings.summary.claimed(lag);
      observe?.(this.kind, lag);
      sum += lag;
      if (lag > max) max = lag;
    }
    log?.(`claimed ${claimed.length} due ${this.name} checks`, {
      kind: this.name,
      claimed: claimed.length,
      lag_ms_max: max,
      lag_ms_mean: Math.round(sum / claimed.length),
    });
  }
}
