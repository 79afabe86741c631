import type { Clock, ClaimedDevice, DeviceCheckOutcome } from '../../core/index.ts';
import type { Connector } from '../net/connector.ts';

/** The settings a device check reads (docs/engine.md, "Device probes" and "Statuses and transitions"). */
export interface DeviceCheckOptions {
  probeTimeoutMs: number;
  connectTimeoutMs: number;
  retryDelayS: number;
  failuresBeforeDown: number;
  tlsWarnDays: number;
  /** Certificates (PEM) the TLS probes trust besides Node's CA list. */
  ca?: readonly string[];
}

export interface DeviceCheckContext {
  /** The guarded connector: every probe's way out. */
  connector: Connector;
  clock: Clock;
  options: DeviceCheckOptions;
  /** Aborted when the check's lease is about to run out: its result could no longer be written. */
  signal: AbortSignal;
  /** The engine's source of jitter for the next check, in [0, 1); Math.random when absent. */
  random?: () => number;
}

/**
 * Checks one claimed device: runs its probes and says what the store should write, next check
 * and events included. The engine schedules, bounds and records; this decides.
 */
export type DeviceCheck = (claimed: ClaimedDevice, context: DeviceCheckContext) => Promise<DeviceCheckOutcome>;
