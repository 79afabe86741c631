import type { HeartbeatState } from '../heartbeats/heartbeat-state.ts';
import type { BlacklistMonitor, Device } from '../records/index.ts';

/**
 * What a store tells of its records changing (`Store.watchChanges`), for the answers a process
 * keeps (docs/status-pages.md, "Caching and conditional requests"): which record changed in what
 * a public answer may show. A notice is told as its page (`status_page`), a status change or a
 * listing as its device or blacklist monitor.
 */
export type ChangedKind = 'device' | 'blacklist_monitor' | 'heartbeat' | 'status_page' | 'maintenance_window';

export interface RecordChanged {
  kind: ChangedKind;
  id: number;
}

export interface ChangeListener {
  /** A record changed; told once its write is committed, by whichever process made it. */
  changed(change: RecordChanged): void;
  /**
   * Whether changes are heard: false from when a change may go unheard (a lost connection), true
   * again once every change from then on will be. Told true once when watching starts and works.
   */
  hearing(live: boolean): void;
}

/** What a public status answer shows of a device: another fingerprint, another answer (status-view.ts). */
export function deviceShown(d: Device): string {
  const failing = Object.entries(d.locations ?? {})
    .filter(([, l]) => l.status === 'failing')
    .map(([name]) => name)
    .sort();
  return JSON.stringify([d.status, d.status_since, d.is_enabled, d.target_value, d.port, d.service_type, failing]);
}

/** What a public status answer shows of a blacklist monitor (status-view.ts). */
export function monitorShown(m: BlacklistMonitor): string {
  return JSON.stringify([m.last_status, m.is_enabled, m.target_value, [...m.listed_on].sort()]);
}

/**
 * What a public status answer shows of a heartbeat (status-view.ts): `up` and `started` are one
 * state there, so a ping that starts or ends a run of a heartbeat that stays up shows nothing new.
 */
export function heartbeatShown(h: HeartbeatState): string {
  const { record } = h;
  const status = record.status === 'started' ? 'up' : record.status;
  return JSON.stringify([status, record.is_enabled, record.name, h.maintenance_since === null, h.user_id]);
}

/** The listeners of one store's changes: each told every change, a failing listener never stopping the rest. */
export class ChangeFeed {
  readonly #listeners = new Set<ChangeListener>();

  get watched(): boolean {
    return this.#listeners.size > 0;
  }

  watch(listener: ChangeListener): () => void {
    // A wrapper of its own: the same listener watching twice is two watches.
    const own: ChangeListener = { changed: (c) => listener.changed(c), hearing: (l) => listener.hearing(l) };
    this.#listeners.add(own);
    return () => this.#listeners.delete(own);
  }

  changed(kind: ChangedKind, id: number): void {
    for (const listener of this.#listeners) listener.changed({ kind, id });
  }

  hearing(live: boolean): void {
    for (const listener of this.#listeners) listener.hearing(live);
  }
}
