import net from 'node:net';
import type { ApiServer } from './http-server.ts';

/**
 * How long a shutdown waits for requests in flight by default. serve derives its own from the
 * store's timeouts, so that a request waiting on a stalled database gets the store's error first.
 */
export const DRAIN_DEADLINE_MS = 20_000;

/** How often idle keep-alive connections are closed while draining. */
const IDLE_SWEEP_MS = 100;

/**
 * How long idle keep-alive connections are left open after the signal. A client may be sending
 * its next request on one right then; closing it would reset that request, and the client could
 * not tell whether it was applied. Within the grace such a request is answered, with
 * `Connection: close`, and a client with more to send moves to a new connection, which is refused.
 */
const IDLE_GRACE_MS = 1_000;

/** How long a graceful exit waits for its last log lines to be taken by a slow output. */
const OUTPUT_GRACE_MS = 1_000;

export interface ShutdownTimeouts {
  /** Default DRAIN_DEADLINE_MS. */
  drainDeadlineMs?: number;
  /** Default 1 s (IDLE_GRACE_MS). */
  idleGraceMs?: number;
}

export interface Shutdown {
  /** Whether a signal has started the shutdown. */
  readonly stopping: boolean;
}

export interface ShutdownHooks {
  /** Releases what the server used (API, limiter, store), once every request has finished. */
  release(): Promise<void>;
  /**
   * Called just before the process exits, to write out buffered log lines. After a graceful stop
   * the exit waits for the promise it returns, for at most OUTPUT_GRACE_MS.
   */
  beforeExit(): void | Promise<void>;
}

/**
 * On SIGTERM or SIGINT: stop accepting, let requests in flight finish (each answer closing its
 * connection), release, exit 0. At the deadline, requests still in flight are answered 500 and
 * the process exits 1: it never exits with a request it accepted unanswered. A second signal or
 * a failure to release exits 1 at once.
 */
export function exitGracefullyOnSignals(
  { server, closeConnectionsWhenAnswered, closeUnusedConnections, answerInFlightWithServerError }: ApiServer,
  hooks: ShutdownHooks,
  timeouts: ShutdownTimeouts = {},
): Shutdown {
  const drainDeadlineMs = timeouts.drainDeadlineMs ?? DRAIN_DEADLINE_MS;
  const idleGraceMs = timeouts.idleGraceMs ?? IDLE_GRACE_MS;
  let stopping = false;
  const exitNow = (why: string) => {
    void hooks.beforeExit();
    process.stderr.write(`monitoring-api: ${why}\n`);
    process.exit(1);
  };

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) exitNow(`${signal} again, exiting now`);
    stopping = true;
    closeConnectionsWhenAnswered();
    const deadline = setTimeout(() => {
      // Answers are written within a second, or their connections are given up.
      setTimeout(() => exitNow(`requests still in flight after ${drainDeadlineMs} ms, exiting`), 1_000).unref();
      answerInFlightWithServerError().then((answered) =>
        exitNow(
          answered === 0
            ? `shutting down took longer than ${drainDeadlineMs} ms, exiting`
            : `answered ${answered} request(s) still in flight after ${drainDeadlineMs} ms with 500, exiting`,
        ),
      );
    }, drainDeadlineMs);
    deadline.unref();
    // After the grace, idle connections go, and those that never delivered a request; one whose
    // request was in flight turns idle only once answered, so the sweep repeats until none is left.
    // Each sweep waits for the loop to read its sockets first (setImmediate runs after the poll
    // phase): after a stall, the timers run before the sockets are read, and a request that came
    // in before the grace ended would look like an unused connection and be closed unanswered.
    let sweep: ReturnType<typeof setInterval> | undefined;
    const closeQuiet = () =>
      setImmediate(() => {
        server.closeIdleConnections();
        closeUnusedConnections();
      });
    const grace = setTimeout(() => {
      closeQuiet();
      sweep = setInterval(closeQuiet, IDLE_SWEEP_MS);
    }, idleGraceMs);
    // Stop accepting at once. net's close() and not http's: http's would also drop the idle
    // keep-alive connections now, with no grace. It calls back once every connection is closed.
    net.Server.prototype.close.call(server, () => {
      clearTimeout(grace);
      clearInterval(sweep);
      hooks.release().then(
        () => {
          clearTimeout(deadline);
          const wrote = Promise.resolve(hooks.beforeExit());
          const gaveUp = new Promise((resolve) => setTimeout(resolve, OUTPUT_GRACE_MS));
          const exit = () => process.exit(0);
          void Promise.race([wrote, gaveUp]).then(exit, exit);
        },
        (error: unknown) =>
          exitNow(`shutting down failed: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`),
      );
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return {
    get stopping() {
      return stopping;
    },
  };
}
