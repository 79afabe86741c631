import * as v from 'valibot';
import type { ErrorDetail } from '../http/api-error.ts';
import { SERVICE_TYPES, type Device, type NewDevice, type Scheme, type ServiceType } from '../records/index.ts';
import { isValidHostHeader, normalizeHost, normalizeTarget } from '../targets/normalize-target.ts';
import { detail, type FieldHints } from './details.ts';
import { LOCATION_NAME } from '../locations.ts';
import { flag, integer, oneOf, optional, text } from './field-schemas.ts';
import { notifyEntries, notifyFields, notifyHints } from './notify-fields.ts';
import { failIfAny, parseFields } from './parse-fields.ts';

const SCHEMES = ['http', 'https'] as const;
/** The most locations one device may be checked from. */
const MAX_CHECK_LOCATIONS = 16;

export const deviceSchema = v.object(
  {
    target_type: oneOf(['domain', 'ip'] as const),
    target_value: text(253),
    service_type: optional(oneOf(SERVICE_TYPES)),
    scheme: optional(oneOf(SCHEMES)),
    port: optional(integer(1, 65535)),
    host_header: optional(text(261)),
    proxy_enabled: optional(flag()),
    origin_host: optional(text(253)),
    origin_scheme: optional(oneOf(SCHEMES)),
    origin_port: optional(integer(1, 65535)),
    check_public_http: optional(flag()),
    check_public_https: optional(flag()),
    check_public_tls: optional(flag()),
    check_origin_http: optional(flag()),
    check_origin_tls: optional(flag()),
    expect_status: optional(integer(100, 599)),
    location: optional(text(255)),
    is_enabled: optional(flag()),
    check_interval_s: optional(integer(30, 86400)),
    check_locations: optional(
      v.pipe(
        v.array(v.pipe(v.string('invalid_type'), v.regex(LOCATION_NAME, 'invalid_value')), 'invalid_type'),
        v.minLength(1, 'out_of_range'),
        v.maxLength(MAX_CHECK_LOCATIONS, 'out_of_range'),
        v.check((names) => new Set(names).size === names.length, 'invalid_value'),
      ),
    ),
    quorum: optional(integer(1, MAX_CHECK_LOCATIONS)),
    ...notifyEntries,
  },
  'invalid_type',
);

const FLAG = 'true, false, 0 or 1';
export const deviceHints: FieldHints = {
  target_type: "'domain' or 'ip'",
  target_value: 'a public domain name or IP address of at most 253 characters',
  service_type: `one of ${SERVICE_TYPES.join(', ')}`,
  scheme: "'http' or 'https'",
  port: 'an integer from 1 to 65535',
  host_header: 'a host name, optionally with :port, of at most 261 characters',
  proxy_enabled: FLAG,
  origin_host: 'a public host name or IP address of at most 253 characters',
  origin_scheme: "'http' or 'https'",
  origin_port: 'an integer from 1 to 65535',
  check_public_http: FLAG,
  check_public_https: FLAG,
  check_public_tls: FLAG,
  check_origin_http: FLAG,
  check_origin_tls: FLAG,
  expect_status: 'an integer from 100 to 599',
  location: 'text of at most 255 characters without control characters',
  is_enabled: FLAG,
  check_interval_s: 'an integer from 30 to 86400 (seconds)',
  check_locations: `a list of 1 to ${MAX_CHECK_LOCATIONS} distinct location names, each of 1 to 32 of a-z, 0-9 and -`,
  quorum: 'an integer from 1 to the number of check_locations, given only with check_locations',
  ...notifyHints,
};

export const DEFAULT_PORTS: Readonly<Record<Exclude<ServiceType, 'web' | 'tcp'>, number>> = {
  ssh: 22,
  smtp: 25,
  smtps: 465,
  submission: 587,
  ftp: 21,
  imap: 143,
  imaps: 993,
  pop3: 110,
  pop3s: 995,
  dns: 53,
  mysql: 3306,
  postgresql: 5432,
  rdp: 3389,
};

const webPort = (scheme: Scheme) => (scheme === 'https' ? 443 : 80);

/** Fields that mean something for web monitoring only (docs/contract.md §6.1). */
const WEB_ONLY = [
  'scheme',
  'host_header',
  'proxy_enabled',
  'origin_host',
  'origin_scheme',
  'origin_port',
  'check_public_http',
  'check_public_https',
  'check_origin_http',
  'check_origin_tls',
  'expect_status',
] as const;

/** A location before its first result. */
const UNHEARD = { status: 'unknown', last_checked_at: null, response_ms: null, error: null } as const;

export interface TargetOptions {
  allowPrivateTargets: boolean;
}

/** A create-device body as the record to store, or a 400 listing every problem (docs/contract.md §4 to §6.1). */
export function parseDeviceInput(input: Record<string, unknown>, options: TargetOptions, createdAt: string): NewDevice {
  const { fields: f, details } = parseFields(deviceSchema, input, deviceHints);
  const bad = new Set(details.map((d) => d.field));
  const problem = (field: string, code: ErrorDetail['code']) => {
    if (!bad.has(field)) details.push(detail(field, code, deviceHints));
    bad.add(field);
  };

  let targetValue = '';
  if (f.target_type != null && f.target_value != null) {
    const target = normalizeTarget(f.target_type, f.target_value, options);
    if ('problem' in target) problem('target_value', target.problem);
    else targetValue = target.value;
  }

  const service: ServiceType = f.service_type ?? 'web';
  const web = service === 'web';
  if (!web && !bad.has('service_type')) {
    // On another service a web-only field may be left out, null or false, and nothing else.
    for (const name of WEB_ONLY) {
      const given = input[name];
      if (given !== undefined && given !== null && given !== false && given !== 0) problem(name, 'not_applicable');
    }
  }

  const scheme: Scheme | null = web ? (f.scheme ?? 'https') : null;
  let port = f.port ?? null;
  if (port === null) {
    if (service === 'tcp') problem('port', 'missing');
    else port = scheme !== null ? webPort(scheme) : DEFAULT_PORTS[service as keyof typeof DEFAULT_PORTS];
  }

  if (f.host_header != null && !isValidHostHeader(f.host_header)) problem('host_header', 'invalid_value');

  const proxyEnabled = web && (f.proxy_enabled ?? false);
  const checkOriginHttp = web && (f.check_origin_http ?? false);
  const checkOriginTls = web && (f.check_origin_tls ?? false);
  let originHost: string | null = null;
  if (web && f.origin_host != null) {
    const origin = normalizeHost(f.origin_host, options);
    if ('problem' in origin) problem('origin_host', origin.problem);
    else originHost = origin.value;
  } else if (web && (proxyEnabled || checkOriginHttp || checkOriginTls) && !bad.has('origin_host')) {
    problem('origin_host', 'missing');
  }
  const originScheme: Scheme | null = web ? (f.origin_scheme ?? scheme) : null;

  const checkLocations = f.check_locations ?? null;
  let quorum: number | null = null;
  if (checkLocations !== null) quorum = f.quorum ?? Math.floor(checkLocations.length / 2) + 1;
  if (f.quorum != null && !bad.has('check_locations')) {
    if (checkLocations === null) problem('quorum', 'invalid_value');
    else if (f.quorum > checkLocations.length) problem('quorum', 'out_of_range');
  }

  failIfAny(details);
  return {
    target_type: f.target_type!,
    target_value: targetValue,
    service_type: service,
    scheme,
    port: port!,
    host_header: web ? (f.host_header ?? null) : null,
    proxy_enabled: proxyEnabled,
    origin_host: originHost,
    origin_scheme: originScheme,
    origin_port: web ? (f.origin_port ?? webPort(originScheme!)) : null,
    check_public_http: web && (f.check_public_http ?? scheme === 'http'),
    check_public_https: web && (f.check_public_https ?? scheme === 'https'),
    check_public_tls: f.check_public_tls ?? scheme === 'https',
    check_origin_http: checkOriginHttp,
    check_origin_tls: checkOriginTls,
    expect_status: web ? (f.expect_status ?? 200) : null,
    location: f.location ?? null,
    is_enabled: f.is_enabled ?? true,
    created_at: createdAt,
    check_interval_s: f.check_interval_s ?? 60,
    check_locations: checkLocations,
    quorum,
    quorum_state: null,
    locations: checkLocations === null ? null : Object.fromEntries(checkLocations.map((name) => [name, UNHEARD])),
    status: (f.is_enabled ?? true) ? 'pending' : 'paused',
    status_since: null,
    last_checked_at: null,
    last_results: {},
    ...notifyFields(f),
  };
}

/** Fields a create derives from others when they are left out (docs/contract.md §6.1's defaults). */
const DERIVED = [
  'port',
  'origin_scheme',
  'origin_port',
  'check_public_http',
  'check_public_https',
  'check_public_tls',
  'expect_status',
] as const;
/** The fields the derived ones follow. */
const DRIVERS = ['service_type', 'scheme', 'origin_scheme'] as const;

/**
 * The fields of a device that a PATCH makes derive again (docs/contract.md §6.9):
 * when the body changes the service, the scheme or the origin scheme, each derived field the body
 * leaves out and that still holds the default of the device as it was follows the change (a port
 * of 443 becomes 80 with `scheme: "http"`; an explicit 8443 stays); leaving web clears the web-only
 * fields to their defaults.
 */
export function rederivedDeviceFields(device: Device, body: Record<string, unknown>, options: TargetOptions): string[] {
  if (!DRIVERS.some((name) => Object.hasOwn(body, name))) return [];
  const again: string[] = [];
  const service = Object.hasOwn(body, 'service_type') ? (body.service_type ?? 'web') : device.service_type;
  if (service !== 'web') again.push(...WEB_ONLY);
  const stored = device as unknown as Record<string, unknown>;
  const base: Record<string, unknown> = {};
  for (const name of Object.keys(deviceSchema.entries)) {
    if (!(DERIVED as readonly string[]).includes(name) && stored[name] !== null) base[name] = stored[name];
  }
  if (device.service_type === 'tcp') base.port = device.port;
  let defaults: NewDevice;
  try {
    defaults = parseDeviceInput(base, options, device.created_at);
  } catch {
    return again;
  }
  for (const name of DERIVED) {
    if (Object.hasOwn(body, name)) continue;
    // An origin port follows the origin scheme it was given with, explicit or not.
    const fallback =
      name === 'origin_port' && device.origin_scheme !== null ? webPort(device.origin_scheme) : defaults[name];
    if (stored[name] === fallback) again.push(name);
  }
  return again;
}
