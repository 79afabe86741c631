import type { Client, Notification } from 'pg';
import type { ChangeFeed, ChangedKind } from '../../../core/internal.ts';

/** The channel migration 0020's triggers notify on (migrations/0020-record-changes.ts). */
export const CHANGES_CHANNEL = 'monitoring_changes';

const KINDS = new Set<string>(['device', 'blacklist_monitor', 'heartbeat', 'status_page', 'maintenance_window']);

/** The first wait before connecting again after the connection was lost; doubled up to the most. */
const FIRST_RETRY_MS = 250;
const MOST_RETRY_MS = 10_000;
/**
 * How often the LISTEN connection is asked `select 1`: a connection whose server or network went
 * silent (no reset ever comes) fails that query, through the client's `query_timeout`, rather
 * than leave the process keeping answers nobody will tell it are stale.
 */
export const LISTEN_PROBE_MS = 15_000;

export interface PgChangeListenerOptions {
  /** A new client, not connected, for the LISTEN connection. */
  client(): Client;
  /** Told once per outage: from then until it is back, no change is heard. */
  onLost(error: Error): void;
  /** Told once when an outage ends. */
  onBack?(): void;
  /** How often the connection is probed; LISTEN_PROBE_MS unless a test needs it sooner. */
  probeMs?: number;
}

/**
 * The one LISTEN connection of a process (docs/status-pages.md, "Several instances"): every
 * record change the triggers of migration 0020 notify, by any writer, told to `feed` once
 * committed. While the connection is down the feed hears `hearing(false)` (nothing is kept), an
 * outage is told once however long it lasts, and the connection is made again, waiting longer
 * each time up to ten seconds. Started by the first watcher, ended by close.
 */
export class PgChangeListener {
  readonly #feed: ChangeFeed;
  readonly #options: PgChangeListenerOptions;
  #client: Client | undefined;
  #started = false;
  #closed = false;
  #live = false;
  /** Whether the outage going on was told. */
  #told = false;
  #retryMs = FIRST_RETRY_MS;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #probe: ReturnType<typeof setInterval> | undefined;

  constructor(feed: ChangeFeed, options: PgChangeListenerOptions) {
    this.#feed = feed;
    this.#options = options;
  }

  get live(): boolean {
    return this.#live;
  }

  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    void this.#connect();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    clearInterval(this.#probe);
    const client = this.#client;
    this.#client = undefined;
    this.#live = false;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const client = this.#options.client();
    this.#client = client;
    let failed = false;
    const lost = (error: Error) => {
      if (failed) return;
      failed = true;
      if (this.#client === client) this.#lost(error);
      void client.end().catch(() => undefined);
    };
    client.on('error', lost);
    client.on('end', () => lost(new Error('the PostgreSQL LISTEN connection ended')));
    client.on('notification', (message) => this.#notified(message));
    try {
      await client.connect();
      await client.query(`listen ${CHANGES_CHANNEL}`);
    } catch (error) {
      lost(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (failed || this.#closed) return;
    this.#retryMs = FIRST_RETRY_MS;
    this.#live = true;
    clearInterval(this.#probe);
    this.#probe = setInterval(() => {
      client
        .query('select 1')
        .catch((error: unknown) => lost(error instanceof Error ? error : new Error(String(error))));
    }, this.#options.probeMs ?? LISTEN_PROBE_MS);
    this.#probe.unref?.();
    if (this.#told) this.#options.onBack?.();
    this.#told = false;
    this.#feed.hearing(true);
  }

  #notified(message: Notification): void {
    if (message.channel !== CHANGES_CHANNEL || message.payload === undefined) return;
    const colon = message.payload.indexOf(':');
    const kind = message.payload.slice(0, colon);
    const id = Number(message.payload.slice(colon + 1));
    if (KINDS.has(kind) && Number.isSafeInteger(id)) this.#feed.changed(kind as ChangedKind, id);
  }

  #lost(error: Error): void {
    this.#client = undefined;
    clearInterval(this.#probe);
    if (this.#closed) return;
    if (this.#live) {
      this.#live = false;
      this.#feed.hearing(false);
    }
    if (!this.#told) {
      this.#told = true;
      this.#options.onLost(error);
    }
    this.#timer = setTimeout(() => void this.#connect(), this.#retryMs);
    this.#timer.unref?.();
    this.#retryMs = Math.min(this.#retryMs * 2, MOST_RETRY_MS);
  }
}
