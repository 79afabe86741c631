import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { LOCATION_NAME } from '../../core/internal.ts';
import type { MonitoringEngineOptions } from '../../engine/index.ts';
import type { ResolvedEngineOptions } from '../../engine/options.ts';
import { normalizeDnsServers } from '../../engine/net/dns-servers.ts';
import { normalizeZones } from '../../engine/dnsbl/zones.ts';
import { parseZoneInfo } from '../../engine/dnsbl/zone-info.ts';
import { list, positiveInt, text } from '../flags.ts';
import { UsageError } from '../usage-error.ts';

/** The engine's flags, shared by `worker` and `serve --worker` (docs/engine.md, "Configuration"). */
export const ENGINE_FLAGS = {
  concurrency: { type: 'string' },
  'dns-server': { type: 'string', multiple: true },
  'dnsbl-zone': { type: 'string', multiple: true },
  'dnsbl-domain-zone': { type: 'string', multiple: true },
  'dnsbl-zone-info': { type: 'string' },
  'probe-timeout': { type: 'string' },
  'dns-timeout': { type: 'string' },
  lease: { type: 'string' },
  'poll-interval': { type: 'string' },
  'retry-delay': { type: 'string' },
  'failures-before-down': { type: 'string' },
  'result-retention': { type: 'string' },
  'report-retention': { type: 'string' },
  'worker-id': { type: 'string' },
  location: { type: 'string' },
  'probe-source-address': { type: 'string' },
  'ca-file': { type: 'string', multiple: true },
} as const;

/** The engine's settings as flags give them; unset flags are left to the engine's defaults. */
export type EngineFlagOptions = Omit<MonitoringEngineOptions, 'store' | 'clock' | 'logger'>;

type FlagValues = Parameters<typeof text>[0];

/** A RangeError from the engine's own checks, as the one-line usage error the CLI gives. */
function usage<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(error.message);
    throw error;
  }
}

/** A `--ca-file`: PEM certificates, read at start so a wrong path is a usage error, not a failed probe. */
function readCertificates(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--ca-file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'cannot be read'}`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) throw new UsageError(`--ca-file ${path} holds no PEM certificate`);
  return text;
}

/** The shortest lease `--lease` takes: below a second a lease runs out before its batch is written. */
const MIN_LEASE_MS = 1_000;
/** The longest: a record held a day by a dead worker is not checked for a day. */
const MAX_LEASE_MS = 86_400_000;

/** `--NAME MS`: whole milliseconds within [min, max]; undefined when not given. */
function milliseconds(flags: FlagValues, flag: string, min: number, max: number): number | undefined {
  const value = text(flags, flag);
  if (value === undefined) return undefined;
  if (!/^[0-9]+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${flag} must be an integer of milliseconds from ${min} to ${max}, not "${value}"`);
  }
  return Number(value);
}

/** The longest retention either retention flag takes: a hundred years. */
const MAX_RETENTION_DAYS = 36_500;

/**
 * `--result-retention` and `--report-retention`: a whole number of hours (`48h`) or days (`7d`);
 * a bare number is days, as `--result-retention` has always read it. Answered in hours, from one
 * hour to a hundred years; undefined when not given.
 */
export function retentionHours(flags: FlagValues, flag: string): number | undefined {
  const value = text(flags, flag);
  if (value === undefined) return undefined;
  const m = /^([0-9]{1,9})([hd]?)$/.exec(value);
  const hours = m === null ? 0 : Number(m[1]) * (m[2] === 'h' ? 1 : 24);
  if (hours < 1 || hours > MAX_RETENTION_DAYS * 24) {
    throw new UsageError(
      `--${flag} must be a whole number of hours (48h) or days (7d, or a bare 7) from 1h to ${MAX_RETENTION_DAYS}d, not "${value}"`,
    );
  }
  return hours;
}

/** The shortest `--poll-interval`: an idle worker below it would ask the database for work without pause. */
const MIN_POLL_INTERVAL_MS = 100;
/** The longest: a record that falls due waits up to this long on an idle worker. */
const MAX_POLL_INTERVAL_MS = 3_600_000;

/**
 * The zone flags `serve` takes without `--worker` too: the API holds a monitor's `zones` to them,
 * so an API instance must be told the zones its workers ask (docs/engine.md, "Configuration").
 */
const API_ZONE_FLAGS: ReadonlySet<string> = new Set(['dnsbl-zone', 'dnsbl-domain-zone']);

/** Whether any engine flag was given: `serve` takes them only with `--worker` (the zone lists excepted). */
export function firstEngineFlag(flags: FlagValues): string | undefined {
  return Object.keys(ENGINE_FLAGS).find((name) => flags[name] !== undefined && !API_ZONE_FLAGS.has(name));
}

/** `--dnsbl-zone` and `--dnsbl-domain-zone`, checked; a list not given is left to the defaults. */
export function readZoneFlags(flags: FlagValues): Pick<EngineFlagOptions, 'dnsblZones' | 'dnsblDomainZones'> {
  const options: Pick<EngineFlagOptions, 'dnsblZones' | 'dnsblDomainZones'> = {};
  const zones = list(flags, 'dnsbl-zone');
  if (zones.length > 0) options.dnsblZones = usage(() => normalizeZones(zones, '--dnsbl-zone'));
  const domainZones = list(flags, 'dnsbl-domain-zone');
  if (domainZones.length > 0) {
    options.dnsblDomainZones = usage(() => normalizeZones(domainZones, '--dnsbl-domain-zone'));
  }
  return options;
}

/**
 * `--dnsbl-zone-info FILE`: what the operator's zones' answers mean, read and checked at start
 * (engine/dnsbl/zone-info.ts), so a wrong file is one line naming what is wrong and exit 2.
 */
function readZoneInfo(path: string): EngineFlagOptions['dnsblZoneInfo'] {
  let source: string;
  try {
    source = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--dnsbl-zone-info ${path}: ${(error as NodeJS.ErrnoException).code ?? 'cannot be read'}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    throw new UsageError(`--dnsbl-zone-info ${path} is not JSON: ${(error as Error).message}`);
  }
  try {
    return parseZoneInfo(value);
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(`--dnsbl-zone-info ${path}: ${error.message}`);
    throw error;
  }
}

/** Reads and checks the engine flags; every bad value is a UsageError (exit 2). */
export function readEngineFlags(flags: FlagValues, allowPrivateTargets: boolean): EngineFlagOptions {
  const int = (name: string, max: number) => {
    const value = text(flags, name);
    return value === undefined ? undefined : positiveInt(value, `--${name}`, max);
  };
  const options: EngineFlagOptions = {
    concurrency: int('concurrency', 10_000),
    probeTimeoutMs: int('probe-timeout', 600_000),
    dnsTimeoutMs: int('dns-timeout', 600_000),
    // `--lease MS`: how long a claim holds its records. The default (two minutes) is what a dead
    // worker's records wait before another worker checks them; a shorter lease brings them back
    // sooner, and must still outlast the slowest check (device checks are stopped at 90 % of it).
    leaseMs: milliseconds(flags, 'lease', MIN_LEASE_MS, MAX_LEASE_MS),
    // `--poll-interval MS`: how long a worker that found nothing due waits before it asks again.
    // It bounds how late a record that falls due on an idle worker is checked (the scheduling
    // lag), at the price of a claim per interval per worker while there is nothing to do.
    pollIntervalMs: milliseconds(flags, 'poll-interval', MIN_POLL_INTERVAL_MS, MAX_POLL_INTERVAL_MS),
    retryDelayS: int('retry-delay', 86_400),
    failuresBeforeDown: int('failures-before-down', 100),
    resultRetentionHours: retentionHours(flags, 'result-retention'),
    reportRetentionHours: retentionHours(flags, 'report-retention'),
    allowPrivateTargets,
  };
  const caFiles = list(flags, 'ca-file');
  if (caFiles.length > 0) options.trustedCa = caFiles.map(readCertificates);
  const servers = list(flags, 'dns-server');
  if (servers.length > 0) options.dnsServers = usage(() => normalizeDnsServers(servers));
  Object.assign(options, readZoneFlags(flags));
  const zoneInfo = text(flags, 'dnsbl-zone-info');
  if (zoneInfo !== undefined) options.dnsblZoneInfo = readZoneInfo(zoneInfo);
  const workerId = text(flags, 'worker-id');
  if (workerId !== undefined) {
    if (!/^[\x21-\x7e]{1,200}$/.test(workerId))
      throw new UsageError(`--worker-id must be 1 to 200 printable characters without spaces, not "${workerId}"`);
    options.workerId = workerId;
  }
  const location = text(flags, 'location');
  if (location !== undefined) {
    if (!LOCATION_NAME.test(location))
      throw new UsageError(`--location must be 1 to 32 of a-z, 0-9 and -, not "${location}"`);
    options.location = location;
  }
  const source = text(flags, 'probe-source-address');
  if (source !== undefined) {
    if (isIP(source) === 0) throw new UsageError(`--probe-source-address must be an IP address, not "${source}"`);
    options.probeSourceAddress = source;
  }
  return options;
}

/** One line saying what the engine runs with, for the operator reading the start-up output. */
export function describeEngine(o: ResolvedEngineOptions): string {
  const dns = o.dnsServers.length > 0 ? o.dnsServers.join(',') : 'the system resolver';
  const source = o.probeSourceAddress === undefined ? '' : `, probes from ${o.probeSourceAddress}`;
  const policy = o.allowPrivateTargets ? 'private targets allowed' : 'private targets refused';
  const settings = `concurrency ${o.concurrency}, polling every ${o.pollIntervalMs} ms when idle, DNS ${dns}, ${policy}`;
  return `monitoring-api: worker ${o.workerId} checking devices and blacklist monitors from location ${o.location}${source} (${settings})\n`;
}
