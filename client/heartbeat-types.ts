/** What the client sends and receives for heartbeats (docs/heartbeats.md, "The resource"). */
import type { AvailabilityReport, Heartbeat, HeartbeatPing, HeartbeatStatus, PingKind } from '../core/index.ts';
import type {
  AllResultsOptions,
  Changes,
  Flag,
  RangeOptions,
  ResourceClient,
  ResultPage,
  ResultsOptions,
} from './types.ts';

export type { Heartbeat, HeartbeatPing, HeartbeatStatus, PingKind };

/** A heartbeat to create: exactly one of `period_s` and `schedule`; null means the same as leaving a field out. */
export interface HeartbeatInput {
  /** 1-100 characters. */
  name?: string | null;
  /** 60 to 31,536,000 seconds between successes. */
  period_s?: number | null;
  /** A five-field cron expression, read in `time_zone`. */
  schedule?: string | null;
  /** An IANA zone. Default UTC. */
  time_zone?: string | null;
  /** Default 300. */
  grace_s?: number | null;
  max_runtime_s?: number | null;
  min_runtime_s?: number | null;
  is_enabled?: Flag | null;
  /** The channels told of its events: null, your default channels; [] none; else these ids of yours. */
  channel_ids?: number[] | null;
}

/** A change of a heartbeat: `rotate_token: true` gives it a new ping URL at once. */
export type HeartbeatChanges = Changes<HeartbeatInput> & { rotate_token?: Flag | null };

export interface HeartbeatClient extends ResourceClient<Heartbeat, HeartbeatInput, Heartbeat, HeartbeatChanges> {
  /** One page of a heartbeat's pings, newest first, and the cursor of the next (older) page. */
  pings(id: number, options?: ResultsOptions): Promise<ResultPage<HeartbeatPing>>;
  allPings(id: number, options?: AllResultsOptions): AsyncIterableIterator<HeartbeatPing>;
  /** `GET /heartbeats/availability`: how one heartbeat spent the range. */
  availability(id: number, options?: RangeOptions): Promise<AvailabilityReport>;
}
