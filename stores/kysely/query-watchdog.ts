import type { PoolClient } from 'pg';

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/** How often the watchdog looks, as a share of the timeout, within these bounds. */
const CHECKS_PER_TIMEOUT = 8;
const MIN_CHECK_MS = 25;
const MAX_CHECK_MS = 1_000;

/** What a connection given up on reports to the queries it was running. */
const QUERY_READ_TIMEOUT = 'Query read timeout';

interface Watched {
  /** When the connection last went from idle to busy (performance.now()), or 0 while idle. */
  busySince: number;
}

/**
 * Ends a pooled PostgreSQL connection that has been busy for `timeoutMs` without once becoming
 * idle: a server that stopped answering altogether (the server's own `statement_timeout` cannot
 * help then) must not hang a request. Its queries fail with "Query read timeout", and the pool
 * replaces the connection.
 *
 * One timer per pool, not one per query: pg's `query_timeout` arms a timer for each query whose
 * callback holds the whole request, which profiles once blamed for promoting requests to the old
 * generation; on the machine measured since, the two cost the same:
 * docs/performance.md, "What stands between these figures and the targets". Unlike pg's, this one
 * closes the connection, so no later query waits behind the lost answer. A query costs one
 * comparison, and the connection's `drain` event (pg emits it each time the connection's queue
 * empties) marks it idle.
 */
export class QueryWatchdog {
  readonly #timeoutMs: number;
  readonly #checkMs: number;
  readonly #watched = new Map<PoolClient, Watched>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#checkMs = Math.min(MAX_CHECK_MS, Math.max(MIN_CHECK_MS, Math.floor(timeoutMs / CHECKS_PER_TIMEOUT)));
  }

  /** Watches a new pool client; call from the pool's `connect` event. */
  attach(client: PoolClient): void {
    const watched: Watched = { busySince: 0 };
    this.#watched.set(client, watched);
    const target = client as unknown as { query: Query };
    const query: Query = target.query.bind(client);
    target.query = (config, values, callback) => {
      if (watched.busySince === 0) watched.busySince = performance.now();
      return query(config, values, callback);
    };
    client.on('drain', () => {
      watched.busySince = 0;
    });
    // The timer runs only while the pool has connections, so a closed store leaves none behind.
    this.#timer ??= setInterval(() => this.#check(), this.#checkMs).unref();
  }

  /** Stops watching a client the pool removed. */
  detach(client: PoolClient): void {
    this.#watched.delete(client);
    if (this.#watched.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #check(): void {
    const now = performance.now();
    for (const [client, watched] of this.#watched) {
      if (watched.busySince === 0 || now - watched.busySince < this.#timeoutMs) continue;
      watched.busySince = 0;
      // pg hands the stream's error to the active and queued queries, marks the client unusable
      // and the pool drops it on release; the store's `error` listener on the client catches the
      // event itself (open-database.ts).
      client.connection.stream.destroy(new Error(QUERY_READ_TIMEOUT));
    }
  }
}
