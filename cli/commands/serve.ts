import { createMonitoringApi, DEFAULTS, type RateLimiter, type RateLimitRule } from '../../core/index.ts';
import {
  createChannelSender,
  createMonitoringEngine,
  createWebhookSender,
  type MonitoringEngine,
} from '../../engine/index.ts';
import { resolveEngineOptions } from '../../engine/options.ts';
import { bootstrapFirstKey, type Bootstrapped } from './bootstrap.ts';
import { POSTGRES_TIMEOUTS } from '../../stores/kysely/index.ts';
import { databaseUrl, openMigrated } from './database.ts';
import {
  describeEngine,
  ENGINE_FLAGS,
  firstEngineFlag,
  readEngineFlags,
  readZoneFlags,
  type EngineFlagOptions,
} from './engine-flags.ts';
import { CHANNEL_FLAGS, readChannelFlags, readPublicUrl, type ChannelFlagOptions } from './channel-flags.ts';
import { jsonEngineLogger } from './engine-log.ts';
import { poolErrorLog } from './pool-errors.ts';
import { readLogLevel, type LogLevel } from '../log-level.ts';
import {
  cidrs,
  env,
  hostPort,
  list,
  port,
  positiveInt,
  rateLimit,
  readFlags,
  text,
  type FlagValues,
} from '../flags.ts';
import { loadMetrics } from '../metrics/load-metrics.ts';
import { startMetricsListener } from '../metrics/metrics-listener.ts';
import type { SideListener } from '../server/side-listener.ts';
import { listenerUrl } from '../server/side-listener.ts';
import { exitGracefullyOnSignals } from '../server/graceful-shutdown.ts';
import type { CliIo } from '../io.ts';
import { baseUrl, createApiServer, listen, SERVER_TIMEOUTS, type ServerTimeouts } from '../server/http-server.ts';
import { checkRateLimitStore, rateLimiterFromUrl } from './rate-limiter-from-url.ts';
import { databaseReadiness } from './readiness.ts';
import { jsonLogger } from '../server/request-log.ts';
import { version } from '../version.ts';
import { UsageError } from '../usage-error.ts';

/** The flags `serve` takes: its --help and docs/cli.md list the same (test/docs/cli-help.test.ts). */
export const SERVE_FLAGS = {
  host: { type: 'string' },
  port: { type: 'string' },
  database: { type: 'string' },
  'rate-limit': { type: 'string' },
  'rate-limit-store': { type: 'string' },
  'rate-limit-fail': { type: 'string' },
  'trust-proxy': { type: 'string', multiple: true },
  'allow-private-targets': { type: 'boolean' },
  'log-level': { type: 'string' },
  'metrics-address': { type: 'string' },
  'body-limit': { type: 'string' },
  'no-prepared-statements': { type: 'boolean' },
  worker: { type: 'boolean' },
  ...CHANNEL_FLAGS,
  ...ENGINE_FLAGS,
  'query-timeout': { type: 'string' },
  'shutdown-timeout': { type: 'string' },
  'header-timeout': { type: 'string' },
  'request-timeout': { type: 'string' },
  'keep-alive-timeout': { type: 'string' },
} as const;

/** Timeouts past a day are typos, not needs. */
const MAX_TIMEOUT_MS = 86_400_000;

/** A body limit past this is a typo rather than a need: the API takes small JSON objects. */
const MAX_BODY_LIMIT = 64 * 1024 * 1024;

interface ServeConfig {
  host: string;
  port: number;
  database: string;
  rateLimit: RateLimitRule;
  rateLimitStore: string;
  failOpen: boolean;
  trustProxy: string[];
  bodyLimit: number;
  /** `--public-url`: where clients reach this server, for heartbeats' `ping_url`. */
  publicUrl: string | undefined;
  allowPrivateTargets: boolean;
  preparedStatements: boolean;
  /** The engine's settings with `--worker`: the checks then run in this process. */
  engine: EngineFlagOptions | undefined;
  /** The DNSBL zones a monitor's `zones` may name: the workers' (`--dnsbl-zone`, `--dnsbl-domain-zone`). */
  zones: Pick<EngineFlagOptions, 'dnsblZones' | 'dnsblDomainZones'>;
  queryTimeoutMs: number;
  shutdownTimeoutMs: number;
  /** The client timeouts given as flags; the others stay at SERVER_TIMEOUTS. */
  serverTimeouts: ServerTimeouts;
  logLevel: LogLevel;
  /** `--metrics-address`: the Prometheus listener's, never the API's port. */
  metricsAddress: { host: string; port: number } | undefined;
  /** Where channels' messages go (`--smtp-url`, `--public-url`, ...), checked at start. */
  channels: ChannelFlagOptions;
}

/** --header-timeout, --request-timeout and --keep-alive-timeout, checked as node:http would take them. */
function readServerTimeouts(flags: FlagValues): ServerTimeouts {
  const read = (name: string): number | undefined => {
    const value = text(flags, name);
    return value === undefined ? undefined : positiveInt(value, `--${name}`, MAX_TIMEOUT_MS);
  };
  const timeouts: ServerTimeouts = {};
  const headersTimeout = read('header-timeout');
  const requestTimeout = read('request-timeout');
  const keepAliveTimeout = read('keep-alive-timeout');
  if (headersTimeout !== undefined) timeouts.headersTimeout = headersTimeout;
  if (requestTimeout !== undefined) timeouts.requestTimeout = requestTimeout;
  if (keepAliveTimeout !== undefined) timeouts.keepAliveTimeout = keepAliveTimeout;
  // node:http refuses a header timeout longer than the request's (the headers are part of it);
  // said here as a usage error rather than as its RangeError at listen time.
  const headers = headersTimeout ?? SERVER_TIMEOUTS.headersTimeout;
  const request = requestTimeout ?? SERVER_TIMEOUTS.requestTimeout;
  if (headers > request) {
    throw new UsageError(
      `--header-timeout (${headers} ms) must not exceed --request-timeout (${request} ms): the headers are part of the request`,
    );
  }
  return timeouts;
}

/** Flags win over the environment; every value is checked before anything is opened. */
function readConfig(args: readonly string[], variables: CliIo['env']): ServeConfig {
  const { flags } = readFlags(args, SERVE_FLAGS, 'serve');
  const portFlag = text(flags, 'port');
  const failFlag = text(flags, 'rate-limit-fail');
  const failMode = failFlag ?? env(variables, 'RATE_LIMIT_FAIL') ?? 'open';
  if (failMode !== 'open' && failMode !== 'closed') {
    throw new UsageError(
      `${failFlag === undefined ? 'RATE_LIMIT_FAIL' : '--rate-limit-fail'} must be open or closed, not "${failMode}"`,
    );
  }
  // An empty host would make node:http listen on every interface, the opposite of what was typed.
  if (text(flags, 'host') === '') throw new UsageError('--host needs a host name or address');
  const storeFlag = text(flags, 'rate-limit-store');
  const limit = text(flags, 'rate-limit');
  const bodyLimit = text(flags, 'body-limit');
  const allowPrivateTargets = flags['allow-private-targets'] === true;
  const publicUrl = readPublicUrl(flags);
  const engineFlag = firstEngineFlag(flags);
  if (flags['worker'] !== true && engineFlag !== undefined) throw new UsageError(`--${engineFlag} needs --worker`);
  const queryTimeout = text(flags, 'query-timeout');
  const shutdownTimeout = text(flags, 'shutdown-timeout');
  const apiPort = portFlag !== undefined ? port(portFlag) : port(env(variables, 'PORT') ?? '8080', 'PORT');
  const queryTimeoutMs =
    queryTimeout === undefined
      ? POSTGRES_TIMEOUTS.queryTimeoutMs
      : positiveInt(queryTimeout, '--query-timeout', MAX_TIMEOUT_MS);
  return {
    host: text(flags, 'host') ?? env(variables, 'HOST') ?? '127.0.0.1',
    port: apiPort,
    database: databaseUrl(text(flags, 'database'), variables),
    rateLimit: limit === undefined ? DEFAULTS.rateLimit : rateLimit(limit),
    rateLimitStore:
      storeFlag !== undefined
        ? checkRateLimitStore(storeFlag)
        : checkRateLimitStore(env(variables, 'RATE_LIMIT_STORE') ?? 'memory', 'RATE_LIMIT_STORE'),
    failOpen: failMode === 'open',
    trustProxy: cidrs(list(flags, 'trust-proxy'), '--trust-proxy'),
    bodyLimit: bodyLimit === undefined ? DEFAULTS.bodyLimit : positiveInt(bodyLimit, '--body-limit', MAX_BODY_LIMIT),
    publicUrl,
    allowPrivateTargets,
    preparedStatements: flags['no-prepared-statements'] !== true,
    engine: flags['worker'] === true ? readEngineFlags(flags, allowPrivateTargets) : undefined,
    zones: readZoneFlags(flags),
    queryTimeoutMs,
    // Longer than a request can wait on the database (a connection, then a query), so that one in
    // flight at SIGTERM gets the store's own answer, a 500 at worst, before the deadline.
    shutdownTimeoutMs:
      shutdownTimeout === undefined
        ? POSTGRES_TIMEOUTS.connectionTimeoutMs + queryTimeoutMs + 3_000
        : positiveInt(shutdownTimeout, '--shutdown-timeout', MAX_TIMEOUT_MS),
    serverTimeouts: readServerTimeouts(flags),
    logLevel: readLogLevel(flags),
    metricsAddress: readMetricsAddress(flags, apiPort),
    channels: readChannelFlags(flags, publicUrl),
  };
}

/** `--metrics-address HOST:PORT`, refused on the API's own port: the API never serves metrics. */
function readMetricsAddress(flags: FlagValues, apiPort: number): { host: string; port: number } | undefined {
  const value = text(flags, 'metrics-address');
  if (value === undefined) return undefined;
  const address = hostPort(value, '--metrics-address');
  if (address.port !== 0 && address.port === apiPort) {
    throw new UsageError("--metrics-address must not be the API's port: metrics have a listener of their own");
  }
  return address;
}

function printBootstrapBanner({ user, created }: Bootstrapped, io: CliIo): void {
  const rule = '='.repeat(72);
  io.stdout(
    [
      rule,
      `monitoring-api: new database: created user ${user.id} and a read+write API key (id ${created.key.id}).`,
      `monitoring-api: API key (shown once, keep it now): ${created.token}`,
      rule,
      '',
    ].join('\n'),
  );
}

/** `monitoring-api serve`: the API on node:http until SIGTERM or SIGINT. */
export async function serve(args: readonly string[], io: CliIo): Promise<void> {
  const config = readConfig(args, io.env);
  const logger = jsonLogger(process.stdout, process.stderr, { level: config.logLevel });
  const poolErrors = poolErrorLog(logger);
  const flushLog = () => {
    poolErrors.close();
    return logger.flush();
  };
  // Whatever ends the process, an uncaught exception included, the request lines it gathered go out.
  process.once('exit', () => void flushLog());
  const opened = await openMigrated(config.database, {
    preparedStatements: config.preparedStatements,
    queryTimeoutMs: config.queryTimeoutMs,
    onPoolError: poolErrors.report,
    // One line per outage of the connection that hears other instances' changes (docs/status-pages.md).
    onChangesLost: (error) =>
      logger.error?.('PostgreSQL change notifications lost: status pages are read afresh until they are back', error),
    onChangesBack: () => logger.warn?.('PostgreSQL change notifications are heard again'),
  });
  if (opened.applied.length > 0)
    io.stdout(`monitoring-api: migrated the database: applied ${opened.applied.join(', ')}\n`);
  let rateLimiter: RateLimiter | undefined;
  let engine: MonitoringEngine | undefined;
  // prom-client is loaded only when metrics are asked for: every other start is spared it.
  const metrics = config.metricsAddress === undefined ? undefined : await loadMetrics();
  const apiMetrics = metrics?.api(DEFAULTS.basePath);
  let metricsListener: SideListener | undefined;
  // Whatever was opened is closed again when starting fails, or Redis or the pool would keep
  // the process alive after its error line.
  const release = async () => {
    // The checks in flight finish and are written before the store closes.
    await engine?.stop();
    await rateLimiter?.close?.();
    await metricsListener?.close();
    await opened.store.close();
  };
  try {
    rateLimiter = await rateLimiterFromUrl(config.rateLimitStore, logger, config.failOpen);

    if (metrics !== undefined) {
      metricsListener = await startMetricsListener(config.metricsAddress!.host, config.metricsAddress!.port, metrics);
    }
    // Test deliveries go out under the API's own target policy, through the engine's DNS servers when it has some.
    const outbound = {
      allowPrivateTargets: config.allowPrivateTargets,
      dnsServers: config.engine?.dnsServers ?? [],
      trustedCa: config.engine?.trustedCa ?? [],
    };
    const api = createMonitoringApi({
      store: opened.store,
      rateLimiter: apiMetrics === undefined ? rateLimiter : apiMetrics.countingLimiter(rateLimiter),
      rateLimit: config.rateLimit,
      trustProxy: config.trustProxy,
      bodyLimit: config.bodyLimit,
      ...(config.publicUrl === undefined ? {} : { publicUrl: config.publicUrl }),
      allowPrivateTargets: config.allowPrivateTargets,
      ...config.zones,
      logger:
        apiMetrics === undefined
          ? logger
          : {
              ...logger,
              request(entry) {
                logger.request!(entry);
                apiMetrics.request(entry);
              },
            },
      webhookSender: createWebhookSender(outbound),
      // `POST /channels/test` sends as the engine's deliveries do; without `--smtp-url`, email
      // channels are refused with `email_unavailable`.
      channelSender: createChannelSender({ ...outbound, ...config.channels }),
    });
    const apiServer = createApiServer(api, config.serverTimeouts, databaseReadiness(opened));
    const address = await listen(apiServer.server, config.port, config.host);
    // Only once the address is ours: a first key printed just before "address in use" is easily
    // missed, and it is never printed again.
    const bootstrap = bootstrapFirstKey(opened);
    // From the moment requests can arrive, a signal drains them; bootstrap may still be waiting on
    // a lock then, and a shutdown waits for it: a start that failed must not exit 0.
    const shutdown = exitGracefullyOnSignals(
      apiServer,
      {
        async release() {
          await bootstrap;
          await api.close();
          await release();
        },
        beforeExit: flushLog,
      },
      { drainDeadlineMs: config.shutdownTimeoutMs },
    );
    let bootstrapped: Bootstrapped | undefined;
    try {
      bootstrapped = await bootstrap;
    } catch (error) {
      // Stopping already: the shutdown reports the failure (exit 1) once it has drained.
      if (shutdown.stopping) return;
      apiServer.server.close();
      throw error;
    }
    // A key made is shown, even when a signal came meanwhile: it is never shown again.
    if (bootstrapped !== undefined) printBootstrapBanner(bootstrapped, io);
    if (!shutdown.stopping) io.stdout(`listening on ${baseUrl(address, api.basePath)}\n`);
    if (metricsListener !== undefined && !shutdown.stopping) {
      io.stdout(`monitoring-api: metrics on ${listenerUrl(metricsListener.address)}/metrics\n`);
    }
    // With --worker, this process also checks what the API stores (docs/engine.md, "Shape and run modes").
    if (config.engine !== undefined && !shutdown.stopping) {
      const options = resolveEngineOptions({
        store: opened.store,
        logger: jsonEngineLogger(config.logLevel),
        version: version(),
        ...config.engine,
        channels: config.channels,
        ...(metrics === undefined ? {} : { metrics: metrics.engine() }),
      });
      engine = createMonitoringEngine(options);
      engine.start();
      io.stdout(describeEngine(options));
    }
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
}
