import type { Clock } from '../../core/index.ts';
import type { Connector } from '../net/connector.ts';

/** The engine's default for both timeouts (docs/engine.md, "Device probes"). */
export const DEFAULT_PROBE_TIMEOUT_MS = 10_000;

/** What every probe needs besides the device: the way out, the time and its limits. */
export interface ProbeOptions {
  /** Every connection a probe opens comes from here, so the target policy judges it. */
  connector: Connector;
  /** Stamps `checked_at` and counts a certificate's days left. Durations use a monotonic timer. */
  clock: Clock;
  /** The most one connection attempt (resolution included) may take. */
  connectTimeoutMs: number;
  /** The most the whole probe may take, connecting included: a silent target costs this once. */
  probeTimeoutMs: number;
  /** Aborts the probe (the engine is stopping); the result then says `aborted`. */
  signal: AbortSignal;
  /**
   * Certificates (PEM) trusted by the TLS probes besides Node's own CA list. Tests use it for
   * their own CA; an operator with a private CA can too.
   */
  ca?: readonly string[];
}
