/**
 * Where the engine reports. Every method is optional and the default reports nothing. The core's
 * `Logger` fits as it is (it has `warn` and `error`); `info` adds what an operator reads to see
 * the engine keep up: a summary per minute (checks, failures, scheduling lag), pruned results,
 * recoveries; `debug` adds a line per claimed batch with its scheduling lag.
 */
export interface EngineLogger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info?(message: string, fields?: Record<string, unknown>): void;
  warn?(message: string, fields?: Record<string, unknown>): void;
  /** Something failed that the engine rides out (a store write, a check that threw). */
  error?(message: string, error: unknown): void;
}
