/** Heartbeats: monitors that wait to be told (docs/heartbeats.md). */
import type { Timestamp } from './common.ts';

/** What a heartbeat is waiting for (docs/heartbeats.md, "Statuses"). */
export const HEARTBEAT_STATUSES = ['new', 'up', 'started', 'down', 'paused'] as const;
export type HeartbeatStatus = (typeof HEARTBEAT_STATUSES)[number];

/** What a ping says (docs/heartbeats.md, "Pings"). */
export const PING_KINDS = ['success', 'start', 'fail', 'exit', 'log'] as const;
export type PingKind = (typeof PING_KINDS)[number];

/** Why a heartbeat went down: the `cause` of `heartbeat.down` and of its incident. */
export const HEARTBEAT_DOWN_CAUSES = ['late', 'failed', 'exit_status', 'ran_too_long', 'ran_too_short'] as const;
export type HeartbeatDownCause = (typeof HEARTBEAT_DOWN_CAUSES)[number];

/** The fields a create takes and a PATCH may change. */
export interface HeartbeatSettings {
  /** 1 to 100 characters; null when not given. */
  name: string | null;
  /** Seconds between successes (60 to 31,536,000); null when `schedule` is given. */
  period_s: number | null;
  /** A five-field cron expression read in `time_zone`; null when `period_s` is given. */
  schedule: string | null;
  /** An IANA zone the schedule is read in; `UTC` by default. */
  time_zone: string;
  /** How late a success may be before the heartbeat is down (60 to 31,536,000; default 300). */
  grace_s: number;
  /** A run started with `/start` and not finished within it is down; null: within `grace_s`. */
  max_runtime_s: number | null;
  /** A run that finished sooner is a failure; null: none is too short. */
  min_runtime_s: number | null;
  is_enabled: boolean;
  /**
   * The channels told of its events (docs/notifications.md, "Which channels"): null, every channel
   * of its user with `is_default`; [] none; else these ids, ascending.
   */
  channel_ids: number[] | null;
}

/** A heartbeat as the store keeps it: the settings, the server's fields, and the ping token. */
export interface StoredHeartbeat extends HeartbeatSettings {
  id: number;
  /** The ping token: a random UUID (version 4, lower case). Never shown but in `ping_url`. */
  ping_token: string;
  status: HeartbeatStatus;
  /** When the status last changed; for a heartbeat that was late, the deadline it missed. */
  status_since: Timestamp;
  last_ping_at: Timestamp | null;
  /** How long the last run that ended with a matching start took; null when none did. */
  last_duration_ms: number | null;
  /** When it must have been told, grace included; null while nothing is awaited (new, down, paused). */
  next_due_at: Timestamp | null;
  created_at: Timestamp;
}

/**
 * A heartbeat as the API shows it: the stored record without its token, with `ping_url` for keys
 * with the `write` scope (docs/heartbeats.md, "The resource").
 */
export type Heartbeat = Omit<StoredHeartbeat, 'ping_token'> & { ping_url?: string };

/** A create as the store takes it; `channel_ids` may be left out (stored as null), as for NewDevice. */
export interface NewHeartbeat extends Omit<HeartbeatSettings, 'channel_ids'> {
  channel_ids?: number[] | null;
  ping_token: string;
  created_at: Timestamp;
}

/** One ping as kept (`GET /heartbeats/results`). */
export interface HeartbeatPing {
  id: number;
  kind: PingKind;
  /** The exit status of `/ping/<token>/<0-255>`; null for the other kinds. */
  exit_status: number | null;
  received_at: Timestamp;
  /** For an end of a run with a matching start (same `rid`): how long the run took. */
  duration_ms: number | null;
  /** The client's address, after `trustProxy`. */
  remote_addr: string | null;
  user_agent: string | null;
  /** The first 10,000 bytes of the request's body as text; null when it had none. */
  body: string | null;
  /** The run id (`?rid=`), lower case; null when not given. */
  rid: string | null;
}

/** A ping as the API hands it to the store: the heartbeat's token and what the request said. */
export interface ReceivedPing extends Omit<HeartbeatPing, 'id' | 'duration_ms'> {
  ping_token: string;
}
