/** The engine's workers and the locations they check from, as the API shows them. */
import type { Timestamp } from './common.ts';

/**
 * A monitoring engine worker's sign of life (docs/engine.md, "Locations"): written every 10 s, its
 * time by the store's own clock, so workers whose clocks differ still agree on who is live.
 */
export interface WorkerHeartbeat {
  worker_id: string;
  /** The location the worker checks from: `[a-z0-9-]{1,32}`, `default` unless told. */
  location: string;
  /** The package version the worker runs. */
  version: string;
  started_at: Timestamp;
}

/** One location as `GET /locations` shows it. */
export interface LocationSummary {
  name: string;
  /** Workers of this location whose last heartbeat is younger than 30 s. */
  live_workers: number;
  /** The last heartbeat of any of its workers. */
  last_seen_at: Timestamp;
}
