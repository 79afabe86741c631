import {
  DEFAULT_LOCATION,
  LOCATION_NAME,
  systemClock,
  type Clock,
  type HeartbeatStore,
  type MaintenanceStore,
  type MonitoringStore,
  type NotificationStore,
  type WebhookDeliveryStore,
} from '../core/internal.ts';
import type { ChannelSenderOptions } from './channels/channel-sender.ts';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { DEFAULT_DNSBL_DOMAIN_ZONES, DEFAULT_DNSBL_ZONES, normalizeZones } from './dnsbl/zones.ts';
import type { DnsblResolver } from './dnsbl/resolver.ts';
import type { DnsblZoneInfo } from './dnsbl/catalogue.ts';
import { parseZoneInfo } from './dnsbl/zone-info.ts';
import type { EngineLogger } from './logger.ts';
import type { EngineMetrics } from './metrics.ts';
import type { HostLookup } from './net/connector.ts';
import { normalizeDnsServers } from './net/dns-servers.ts';
import { checkDevice } from './devices/check-device.ts';
import type { DeviceCheck } from './devices/check-device.ts';

/** What `createMonitoringEngine` takes (docs/engine.md, "Configuration"). Only `store` is required. */
export interface MonitoringEngineOptions {
  /**
   * The records to check, the webhook deliveries and channels' messages to make: any `Store`
   * will do. A store without the notification queue (NotificationStore) sends no channel
   * messages; one without `allMaintenanceWindows` and `syncMaintenance` has no maintenance windows,
   * and one without `claimLateHeartbeats` and `recordLateHeartbeats` no heartbeats to find late.
   */
  store: MonitoringStore &
    WebhookDeliveryStore &
    Partial<NotificationStore> &
    Partial<Pick<MaintenanceStore, 'allMaintenanceWindows' | 'syncMaintenance'>> &
    Partial<Pick<HeartbeatStore, 'claimLateHeartbeats' | 'recordLateHeartbeats' | 'deleteHeartbeatPingsBefore'>>;
  clock?: Clock;
  logger?: EngineLogger;
  /** Where the engine's counts go (docs/operations.md, "Metrics"); default nowhere. */
  metrics?: EngineMetrics;
  /** Checks in flight at once in this worker. Default 100. */
  concurrency?: number;
  /** `HOST[:PORT]` servers asked for every name the engine resolves; default the system's. */
  dnsServers?: readonly string[];
  /** Zones asked for IP targets; replaces the defaults. */
  dnsblZones?: readonly string[];
  /** Zones asked for domain targets; replaces the defaults. */
  dnsblDomainZones?: readonly string[];
  /**
   * What zones' answers mean, by zone name, before the built-in catalogue's (docs/engine.md,
   * "What a listing means"): for the operator's own zones, or to correct an entry. Default none.
   */
  dnsblZoneInfo?: Readonly<Record<string, DnsblZoneInfo>>;
  /** Deadline of one DNS lookup (a DNSBL query, or a probe's host name). Default 5000. */
  dnsTimeoutMs?: number;
  /** DNSBL lookups in flight for one check. Default 6. */
  dnsQueriesPerCheck?: number;
  /** Deadline of a whole device probe. Default 10000. */
  probeTimeoutMs?: number;
  /** Deadline of a TCP connect. Default 10000, and never more than `probeTimeoutMs`. */
  connectTimeoutMs?: number;
  /**
   * Seconds to the re-check of a device whose check failed, and of any record whose check failed
   * on the worker's side. Default 30.
   */
  retryDelayS?: number;
  /** Failed checks in a row that make a device `down`. Default 2. */
  failuresBeforeDown?: number;
  /** A certificate expiring within this many days raises `device.tls_expiring`. Default 14. */
  tlsWarnDays?: number;
  /**
   * Certificates (PEM) trusted besides Node's own CA list, by the TLS probes and by https webhook
   * deliveries: for targets and receivers behind a private CA. Default none.
   */
  trustedCa?: readonly string[];
  /** Hours after which check results and webhook delivery attempts are deleted. Default 168 (7 days). */
  resultRetentionHours?: number;
  /**
   * Hours after which report rows (hourly rollups, closed incidents, the status timeline, listing
   * periods) are deleted (docs/engine.md, "Reports"). Default 9600 (400 days).
   */
  reportRetentionHours?: number;
  /** Lifts the target policy for probes, as the API's option does for creates. Default false. */
  allowPrivateTargets?: boolean;
  /** Kept with each lease, for operators. Default `host:pid`. */
  workerId?: string;
  /**
   * The location this worker checks from (docs/engine.md, "Locations"): `[a-z0-9-]{1,32}`.
   * Default `default`.
   */
  location?: string;
  /** The local address probes connect from; the system's choice when absent. Webhooks keep it. */
  probeSourceAddress?: string;
  /** The version the worker's heartbeats report. Default `unknown`; the command gives its own. */
  version?: string;
  /** How long a claim holds its records. Default 120000. */
  leaseMs?: number;
  /** Records claimed at most per claim. Default 100. */
  batchSize?: number;
  /** Finished checks written per store call at most. Default 200. */
  writeBatchSize?: number;
  /** How long a finished check may wait for others to share its write. Default 50. */
  writeDelayMs?: number;
  /** Wait between claims that found nothing due. Default 1000. */
  pollIntervalMs?: number;
  /** How often `start()` prunes old results, webhook attempts and report rows. Default 600000 (ten minutes). */
  retentionSweepMs?: number;
  /** Results (or webhook attempts, or report rows) deleted per store call when pruning. Default 1000. */
  retentionBatchSize?: number;
  /** Answers the probes' host names; default the system's resolver or `dnsServers`. */
  lookup?: HostLookup;
  /** Answers the DNSBL queries; default a node:dns Resolver on `dnsServers`. */
  resolver?: DnsblResolver;
  /** Checks one device; default `checkDevice` (engine/devices/check-device.ts), the probes of docs/engine.md. */
  deviceCheck?: DeviceCheck;
  /** Source of the schedule's jitter, in [0, 1). Default Math.random. */
  random?: () => number;
  /**
   * Where channels' messages go (docs/notifications.md, "Delivery"): the SMTP server, the public
   * URL messages link to, Telegram's and PagerDuty's API URLs. Without `smtpUrl`, email channels'
   * messages wait, retried, as our own failure. Default none of them.
   */
  channels?: Pick<ChannelSenderOptions, 'smtpUrl' | 'smtpFrom' | 'publicUrl' | 'telegramApiUrl' | 'pagerdutyEventsUrl'>;
}

/** The options with every default filled in and every value checked. */
type Optional = 'lookup' | 'resolver' | 'logger' | 'metrics' | 'probeSourceAddress' | 'channels';
export type ResolvedEngineOptions = Required<Omit<MonitoringEngineOptions, Optional>> &
  Pick<MonitoringEngineOptions, 'lookup' | 'resolver' | 'probeSourceAddress' | 'channels'> & {
    logger: EngineLogger;
    metrics: EngineMetrics;
  };

export const ENGINE_DEFAULTS = {
  concurrency: 100,
  dnsTimeoutMs: 5_000,
  dnsQueriesPerCheck: 6,
  probeTimeoutMs: 10_000,
  connectTimeoutMs: 10_000,
  retryDelayS: 30,
  failuresBeforeDown: 2,
  tlsWarnDays: 14,
  trustedCa: [] as readonly string[],
  resultRetentionHours: 7 * 24,
  reportRetentionHours: 400 * 24,
  leaseMs: 120_000,
  batchSize: 100,
  writeBatchSize: 200,
  writeDelayMs: 50,
  pollIntervalMs: 1_000,
  retentionSweepMs: 600_000,
  retentionBatchSize: 1_000,
} as const;

function positive(value: number | undefined, fallback: number, name: string, allowZero = false): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < (allowZero ? 0 : 1)) {
    throw new RangeError(
      `${name} must be ${allowZero ? 'a non-negative' : 'a positive'} integer, not ${String(value)}`,
    );
  }
  return v;
}

function workerId(given: string | undefined): string {
  if (given === undefined) return `${hostname()}:${process.pid}`;
  if (given.trim() === '' || given.length > 200)
    throw new RangeError(`workerId must be 1 to 200 characters, not "${given}"`);
  return given;
}

function location(given: string | undefined): string {
  if (given === undefined) return DEFAULT_LOCATION;
  if (!LOCATION_NAME.test(given)) throw new RangeError(`location must be 1 to 32 of a-z, 0-9 and -, not "${given}"`);
  return given;
}

function sourceAddress(given: string | undefined): string | undefined {
  if (given === undefined) return undefined;
  if (isIP(given) === 0) throw new RangeError(`probeSourceAddress must be an IP address, not "${given}"`);
  return given;
}

/** The operator's zone descriptions, checked and keyed by each zone's normal form, as zones are asked and reported. */
function zoneInfo(info: Readonly<Record<string, DnsblZoneInfo>>): Readonly<Record<string, DnsblZoneInfo>> {
  try {
    return parseZoneInfo(info);
  } catch (error) {
    throw error instanceof RangeError ? new RangeError(`dnsblZoneInfo: ${error.message}`) : error;
  }
}

/** Fills in the defaults; throws a RangeError naming the first bad value. */
export function resolveEngineOptions(options: MonitoringEngineOptions): ResolvedEngineOptions {
  const d = ENGINE_DEFAULTS;
  const probeTimeoutMs = positive(options.probeTimeoutMs, d.probeTimeoutMs, 'probeTimeoutMs');
  return {
    store: options.store,
    clock: options.clock ?? systemClock,
    logger: options.logger ?? {},
    metrics: options.metrics ?? {},
    concurrency: positive(options.concurrency, d.concurrency, 'concurrency'),
    dnsServers: normalizeDnsServers(options.dnsServers ?? []),
    dnsblZones: normalizeZones(options.dnsblZones ?? DEFAULT_DNSBL_ZONES, 'a DNSBL zone'),
    dnsblDomainZones: normalizeZones(options.dnsblDomainZones ?? DEFAULT_DNSBL_DOMAIN_ZONES, 'a DNSBL domain zone'),
    dnsblZoneInfo: zoneInfo(options.dnsblZoneInfo ?? {}),
    dnsTimeoutMs: positive(options.dnsTimeoutMs, d.dnsTimeoutMs, 'dnsTimeoutMs'),
    dnsQueriesPerCheck: positive(options.dnsQueriesPerCheck, d.dnsQueriesPerCheck, 'dnsQueriesPerCheck'),
    probeTimeoutMs,
    connectTimeoutMs: positive(
      options.connectTimeoutMs,
      Math.min(d.connectTimeoutMs, probeTimeoutMs),
      'connectTimeoutMs',
    ),
    retryDelayS: positive(options.retryDelayS, d.retryDelayS, 'retryDelayS'),
    failuresBeforeDown: positive(options.failuresBeforeDown, d.failuresBeforeDown, 'failuresBeforeDown'),
    tlsWarnDays: positive(options.tlsWarnDays, d.tlsWarnDays, 'tlsWarnDays', true),
    trustedCa: [...(options.trustedCa ?? d.trustedCa)],
    resultRetentionHours: positive(options.resultRetentionHours, d.resultRetentionHours, 'resultRetentionHours'),
    reportRetentionHours: positive(options.reportRetentionHours, d.reportRetentionHours, 'reportRetentionHours'),
    allowPrivateTargets: options.allowPrivateTargets === true,
    workerId: workerId(options.workerId),
    location: location(options.location),
    probeSourceAddress: sourceAddress(options.probeSourceAddress),
    version: options.version ?? 'unknown',
    leaseMs: positive(options.leaseMs, d.leaseMs, 'leaseMs'),
    batchSize: positive(options.batchSize, d.batchSize, 'batchSize'),
    writeBatchSize: positive(options.writeBatchSize, d.writeBatchSize, 'writeBatchSize'),
    writeDelayMs: positive(options.writeDelayMs, d.writeDelayMs, 'writeDelayMs', true),
    pollIntervalMs: positive(options.pollIntervalMs, d.pollIntervalMs, 'pollIntervalMs'),
    retentionSweepMs: positive(options.retentionSweepMs, d.retentionSweepMs, 'retentionSweepMs'),
    retentionBatchSize: positive(options.retentionBatchSize, d.retentionBatchSize, 'retentionBatchSize'),
    lookup: options.lookup,
    resolver: options.resolver,
    channels: options.channels,
    deviceCheck: options.deviceCheck ?? checkDevice,
    random: options.random ?? Math.random,
  };
}
