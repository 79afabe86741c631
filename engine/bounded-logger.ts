import { RepeatedErrorLog, type Clock } from '../core/internal.ts';
import type { EngineLogger } from './logger.ts';

export interface BoundedLogger extends EngineLogger {
  /** Writes the counts still pending; the engine calls it when it stops. */
  close(): void;
}

/**
 * The engine's logger with its errors bounded (docs/operations.md, "Logs"): the first failure of
 * a kind is passed on in full, repeats are counted and reported as one warning per interval. A
 * store that is away for an hour fails every claim, write and delivery round the same way; each
 * is then one error and a line every ten seconds, not a stack per attempt.
 */
export function boundedLogger(logger: EngineLogger, clock: Clock): BoundedLogger {
  const errors = new RepeatedErrorLog({
    clock,
    write({ message, error, repeats }) {
      if (repeats === 0) logger.error?.(message, error);
      else logger.warn?.(`${message} (${repeats} more times)`, { repeats });
    },
  });
  return {
    ...(logger.debug === undefined ? {} : { debug: logger.debug.bind(logger) }),
    ...(logger.info === undefined ? {} : { info: logger.info.bind(logger) }),
    ...(logger.warn === undefined ? {} : { warn: logger.warn.bind(logger) }),
    error: (message, error) => void errors.report(message, error),
    close: () => errors.close(),
  };
}
