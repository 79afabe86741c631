import { RepeatedErrorLog, systemClock, type Clock } from '../../core/internal.ts';

/** What a command's log says when PostgreSQL ends one of its pool's idle connections. */
export const IDLE_CONNECTION_FAILED = 'idle PostgreSQL connection failed';

/** The log a PoolErrorLog writes to: the command's own (the server's log, the engine's). */
export interface PoolErrorLogTarget {
  error?(message: string, error: unknown): void;
  warn?(message: string): void;
}

export interface PoolErrorLog {
  /** openKyselyStore's `onPoolError`. */
  report(error: Error): void;
  /** Writes the count still pending; call when the command stops. */
  close(): void;
}

/**
 * The failures of the pool's idle connections (a PostgreSQL restart, a cut network, an
 * administrator's pg_terminate_backend) for `serve` and `worker`: the first as an error line of
 * the command's JSON log, stack and all; the others counted, one warning per 10 s while they go
 * on. All of them are one kind whatever their words: one restart ends each connection with the
 * server's notice, a reset or an unexpected close, and is still one outage. The library's own
 * default, a plain line on stderr per connection, suits a host that passes no `onPoolError`.
 */
export function poolErrorLog(log: PoolErrorLogTarget, clock: Clock = systemClock): PoolErrorLog {
  const errors = new RepeatedErrorLog({
    clock,
    kindOf: (message) => message,
    write({ error, repeats }) {
      if (repeats === 0) log.error?.(IDLE_CONNECTION_FAILED, error);
      else log.warn?.(`${IDLE_CONNECTION_FAILED} (${repeats} more like this since the last line)`);
    },
  });
  return {
    report: (error) => void errors.report(IDLE_CONNECTION_FAILED, error),
    close: () => errors.close(),
  };
}
