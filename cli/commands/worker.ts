import { createMonitoringEngine } from '../../engine/index.ts';
import { resolveEngineOptions } from '../../engine/options.ts';
import { databaseUrl, openMigrated } from './database.ts';
import { CHANNEL_FLAGS, readChannelFlags, readPublicUrl } from './channel-flags.ts';
import { describeEngine, ENGINE_FLAGS, readEngineFlags } from './engine-flags.ts';
import { jsonEngineLogger } from './engine-log.ts';
import { poolErrorLog } from './pool-errors.ts';
import { readLogLevel, type LogLevel } from '../log-level.ts';
import { hostPort, positiveInt, readFlags, text } from '../flags.ts';
import { answerHealth } from '../server/health.ts';
import { listenerUrl, startSideListener, type SideListener } from '../server/side-listener.ts';
import { databaseReadiness } from './readiness.ts';
import { loadMetrics } from '../metrics/load-metrics.ts';
import { startMetricsListener } from '../metrics/metrics-listener.ts';
import { UsageError } from '../usage-error.ts';
import type { CliIo } from '../io.ts';
import { version } from '../version.ts';

/** The flags `worker` takes: its --help and docs/cli.md list the same (test/docs/cli-help.test.ts). */
export const WORKER_FLAGS = {
  database: { type: 'string' },
  'allow-private-targets': { type: 'boolean' },
  'log-level': { type: 'string' },
  'health-address': { type: 'string' },
  'metrics-address': { type: 'string' },
  'no-prepared-statements': { type: 'boolean' },
  'query-timeout': { type: 'string' },
  'stop-timeout': { type: 'string' },
  ...CHANNEL_FLAGS,
  ...ENGINE_FLAGS,
} as const;

/**
 * How long a stop waits for the checks in flight by default (--stop-timeout); those not written
 * by then are checked again later.
 */
export const STOP_DEADLINE_MS = 30_000;

/** A stop deadline past a day is a typo, not a need. */
const MAX_STOP_DEADLINE_MS = 86_400_000;

/**
 * `monitoring-api worker`: the engine alone, against the database, until SIGTERM or SIGINT
 * (docs/engine.md, "Shape and run modes"). Any number may run against one PostgreSQL database.
 * Like every command it brings the schema up to date first: a worker started before the API on a
 * fresh database must not fail on a missing table.
 */
export async function worker(args: readonly string[], io: CliIo): Promise<void> {
  const { flags } = readFlags(args, WORKER_FLAGS, 'worker');
  const stopTimeout = text(flags, 'stop-timeout');
  const stopDeadlineMs =
    stopTimeout === undefined ? STOP_DEADLINE_MS : positiveInt(stopTimeout, '--stop-timeout', MAX_STOP_DEADLINE_MS);
  const engineFlags = readEngineFlags(flags, flags['allow-private-targets'] === true);
  // Checked before anything is opened, as every flag is: a bad value is exit 2 at start.
  const channels = readChannelFlags(flags, readPublicUrl(flags));
  const logLevel: LogLevel = readLogLevel(flags);
  const healthFlag = text(flags, 'health-address');
  const healthAddress = healthFlag === undefined ? undefined : hostPort(healthFlag, '--health-address');
  const metricsFlag = text(flags, 'metrics-address');
  const metricsAddress = metricsFlag === undefined ? undefined : hostPort(metricsFlag, '--metrics-address');
  const samePort =
    metricsAddress !== undefined && metricsAddress.port !== 0 && metricsAddress.port === healthAddress?.port;
  if (samePort) {
    throw new UsageError('--metrics-address and --health-address need ports of their own');
  }
  const database = databaseUrl(text(flags, 'database'), io.env);
  const queryTimeout = text(flags, 'query-timeout');
  // As for serve: how long a PostgreSQL query may take before it is given up (12 s by default).
  const queryTimeoutMs =
    queryTimeout === undefined ? undefined : positiveInt(queryTimeout, '--query-timeout', 86_400_000);
  const log = jsonEngineLogger(logLevel);
  const poolErrors = poolErrorLog(log);
  const opened = await openMigrated(database, {
    preparedStatements: flags['no-prepared-statements'] !== true,
    ...(queryTimeoutMs === undefined ? {} : { queryTimeoutMs }),
    onPoolError: poolErrors.report,
  });
  if (opened.applied.length > 0)
    io.stdout(`monitoring-api: migrated the database: applied ${opened.applied.join(', ')}\n`);

  const ready = databaseReadiness(opened);
  // prom-client is loaded only when metrics are asked for: every other start is spared it.
  const metrics = metricsAddress === undefined ? undefined : await loadMetrics();
  let health: SideListener | undefined;
  let metricsListener: SideListener | undefined;
  try {
    health =
      healthAddress === undefined
        ? undefined
        : await startSideListener(healthAddress.host, healthAddress.port, (req, res) => answerHealth(req, res, ready));
    metricsListener =
      metricsAddress === undefined
        ? undefined
        : await startMetricsListener(metricsAddress.host, metricsAddress.port, metrics!);
  } catch (error) {
    await health?.close();
    await opened.store.close();
    poolErrors.close();
    throw error;
  }
  const options = resolveEngineOptions({
    store: opened.store,
    logger: log,
    version: version(),
    ...engineFlags,
    channels,
    ...(metrics === undefined ? {} : { metrics: metrics.engine() }),
  });
  const engine = createMonitoringEngine(options);
  engine.start();
  // The handlers first, then the line that says the worker runs: a SIGTERM sent on seeing that
  // line must find them, not the default action that kills the process without its exit code.
  stopOnSignals(async () => {
    await engine.stop();
    await health?.close();
    await metricsListener?.close();
    await opened.store.close();
    poolErrors.close();
  }, stopDeadlineMs);
  if (health !== undefined) {
    io.stdout(`monitoring-api: health checks on ${listenerUrl(health.address)}/healthz and /readyz\n`);
  }
  if (metricsListener !== undefined)
    io.stdout(`monitoring-api: metrics on ${listenerUrl(metricsListener.address)}/metrics\n`);
  io.stdout(describeEngine(options));
}

/** The first signal stops gracefully and exits 0; a second one, or the deadline, exits 1 at once. */
export function stopOnSignals(stop: () => Promise<void>, deadlineMs = STOP_DEADLINE_MS): void {
  let stopping = false;
  const exitNow = (why: string) => {
    process.stderr.write(`monitoring-api: ${why}\n`);
    process.exit(1);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) exitNow(`${signal} again, exiting now`);
    stopping = true;
    setTimeout(() => exitNow(`checks still in flight after ${deadlineMs / 1000} s, exiting`), deadlineMs).unref();
    stop().then(
      () => process.exit(0),
      (error: unknown) =>
        exitNow(`stopping failed: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`),
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
