import type { ChannelMessageOutcome, DeliveryOutcome, MonitoredKind } from '../core/index.ts';

/** What the engine claims and writes: the checked records, and heartbeats found late (docs/heartbeats.md). */
type EngineKind = MonitoredKind | 'heartbeat';

/** What a check found, for counting: passed, failed on the target's side, or on the worker's. */
export type CheckVerdict = 'ok' | 'failed' | 'ours';

/** One result's verdict, by the probe that made it. */
export interface ProbeVerdict {
  probe: string;
  verdict: CheckVerdict;
}

/** Read at each scrape: the engine's state now. */
export interface EngineGauges {
  /** Checks running now (slots taken). */
  checksInFlight(): number;
  /** Records claimed and not yet written or given up, by kind. */
  leasesHeld(kind: EngineKind): number;
  /** False while the DNS server does not answer (docs/engine.md, "Our failures are not the target's"). */
  resolverUp(): boolean;
}

/**
 * Where the engine reports what a metrics library counts (the `metrics` option; the command
 * line's Prometheus listener is one). Every method is optional and is called on the engine's hot
 * path, so each should cost no more than an increment.
 */
export interface EngineMetrics {
  /** Called once, as the engine is made, with what a scrape reads. */
  gauges?(gauges: EngineGauges): void;
  /** One claim: how many records it got and how long the store took. */
  claimed?(kind: EngineKind, count: number, durationMs: number): void;
  /** How late one claimed check starts. */
  lag?(kind: EngineKind, lagMs: number): void;
  /** One written check: its verdict and each probe's (a DNSBL zone's probe is `dnsbl`). */
  checked?(kind: EngineKind, verdict: CheckVerdict, results: readonly ProbeVerdict[]): void;
  /** One store write of a batch of checks: how many, how long, and whether it failed. */
  written?(kind: EngineKind, count: number, durationMs: number, failed: boolean): void;
  /** One webhook delivery attempt, as recorded. */
  delivery?(outcome: DeliveryOutcome): void;
  /** One attempt to send a channel its message, as recorded (docs/notifications.md, "Delivery"). */
  channelMessage?(outcome: ChannelMessageOutcome): void;
}
