import type { LocationSummary, Timestamp, WorkerHeartbeat } from './records/index.ts';

// Where checks come from (docs/engine.md, "Locations"): a location is a label on a worker, and a
// worker's heartbeats say which locations can check right now.

/** What a location name may be, for `--location` and a device's `check_locations`. */
export const LOCATION_NAME = /^[a-z0-9-]{1,32}$/;

/** The location of a worker not told otherwise. */
export const DEFAULT_LOCATION = 'default';

/** How often a worker records its heartbeat. */
export const HEARTBEAT_INTERVAL_MS = 10_000;

/** A worker is live while its last heartbeat is younger than this: three missed heartbeats. */
export const LIVE_HEARTBEAT_MS = 30_000;

/** A location stays listed this long after its last heartbeat, with no live worker. */
export const LISTED_LOCATION_MS = 86_400_000;

/** A heartbeat as a store keeps it: the record and when the store's clock saw it. */
export interface StoredHeartbeat extends WorkerHeartbeat {
  last_seen_at: Timestamp;
}

/** The locations of `GET /locations` from the heartbeats a store keeps, as of `nowMs`, by name. */
export function summarizeLocations(heartbeats: Iterable<StoredHeartbeat>, nowMs: number): LocationSummary[] {
  const byName = new Map<string, LocationSummary>();
  for (const beat of heartbeats) {
    const seenMs = Date.parse(beat.last_seen_at);
    if (seenMs <= nowMs - LISTED_LOCATION_MS) continue;
    const summary = byName.get(beat.location) ?? {
      name: beat.location,
      live_workers: 0,
      last_seen_at: beat.last_seen_at,
    };
    if (seenMs > nowMs - LIVE_HEARTBEAT_MS) summary.live_workers += 1;
    if (beat.last_seen_at > summary.last_seen_at) summary.last_seen_at = beat.last_seen_at;
    byName.set(beat.location, summary);
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
