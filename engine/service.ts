/**
 * One part of a running engine with a life of its own (docs/engine.md, "Shape and run modes"):
 * the claim loop, the webhook dispatcher, the heartbeat and each periodic job in `periodic/`.
 * `createMonitoringEngine` only makes them and starts, stops and runs them once.
 *
 * A new periodic job (a sweep, a reminder, an escalation) is one file in `engine/periodic/` that
 * returns an `EngineService`, usually through `periodic()` (periodic/periodic.ts), and one line in
 * the `jobs` list of monitoring-engine.ts: it then runs on the engine's clock while the engine is
 * started, once in every `runOnce()` beside the checks, and `stop()` waits for the run in flight.
 */
export interface EngineService {
  /** What it is, for logs and for people reading the wiring. */
  readonly name: string;
  /** Runs it until `stop()`; calling it while started does nothing. */
  start(): void;
  /** Stops it; resolves once the work in flight has ended. */
  stop(): Promise<void>;
  /** Does its work once, as of `nowMs` (the engine's clock); resolves when done. */
  runOnce(nowMs: number): Promise<unknown>;
}
