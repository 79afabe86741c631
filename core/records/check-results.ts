/** Check results: what each probe of a check found, as stored and listed. */
import type { Timestamp } from './common.ts';

/** The probes a device can run (docs/engine.md, "Device probes"), each when its flag is on. */
export const DEVICE_PROBES = [
  'public_http',
  'public_https',
  'public_tls',
  'origin_http',
  'origin_tls',
  'service',
] as const;
export type DeviceProbe = (typeof DEVICE_PROBES)[number];
/** Every probe name a check result can carry: the device probes and `dnsbl` (one row per zone). */
export type ProbeName = DeviceProbe | 'dnsbl';

/** What every check result says, whatever the probe: plain data a person can read. */
export interface CheckResultBase {
  /** Ids grow with time: a larger id is a later result. */
  id: number;
  /**
   * The check the result belongs to: every result of one check (a device's probes, a monitor's
   * zones) has the same; a later check has a larger one.
   */
  check_id: number;
  /** When the probe finished. */
  checked_at: Timestamp;
  probe: ProbeName;
  ok: boolean;
  /** How long the probe took, in whole milliseconds; null when it never got to connect. */
  response_ms: number | null;
  /** Why the probe failed (`timeout`, `forbidden_address`, `ECONNREFUSED`, ...); null when ok. */
  error: string | null;
  /** Present, and true, on a result of a check made while a maintenance window covered the record. */
  maintenance?: true;
  /**
   * The location whose worker made the check, for a device with `check_locations`; null for a
   * device checked from any one location, and for a blacklist monitor.
   */
  check_location: string | null;
}

/** One DNSBL zone's answer for a blacklist monitor's target (docs/engine.md, "Blacklist monitors (DNSBL)"). */
export interface DnsblResult extends CheckResultBase {
  probe: 'dnsbl';
  zone: string;
  /** True when the zone listed the target; false when it did not, or its lookup failed. */
  listed: boolean;
  /** The A records the zone answered, comma-joined (e.g. `127.0.0.2`); null for NXDOMAIN or a failure. */
  answer: string | null;
  /** What a listing's answer means (as in `listings`); null when not listed or not known. */
  meaning: string | null;
  /** True for a policy listing; false otherwise, and when not listed. */
  policy: boolean;
  /** Where to look up or remove the listing; null when not listed or not known. */
  delist_url: string | null;
  /** The first check that saw the listing; null when not listed. */
  since: Timestamp | null;
}

/** `public_http`, `public_https`, `origin_http`: one GET of `/`, redirects not followed. */
export interface HttpProbeResult extends CheckResultBase {
  probe: 'public_http' | 'public_https' | 'origin_http';
  http_status: number | null;
  /** The `Location` header of a 3xx answer; null otherwise. */
  location: string | null;
}

/** `public_tls`, `origin_tls`: a TLS handshake and the certificate it showed. */
export interface TlsProbeResult extends CheckResultBase {
  probe: 'public_tls' | 'origin_tls';
  tls_valid_to: Timestamp | null;
  /** Whole days until `tls_valid_to`, negative once expired. */
  tls_days_left: number | null;
  /** Node's code for a certificate it refused (`CERT_HAS_EXPIRED`, `ERR_TLS_CERT_ALTNAME_INVALID`, ...). */
  tls_error: string | null;
}

/** `service`: a TCP connection and the protocol's greeting. */
export interface ServiceProbeResult extends CheckResultBase {
  probe: 'service';
  /** The first line the service sent, at most 200 characters; null when it sends none first. */
  banner: string | null;
}

export type DeviceProbeResult = HttpProbeResult | TlsProbeResult | ServiceProbeResult;
/** A stored check result, as `GET /devices/results` and `GET /blacklist-monitors/results` show it. */
export type CheckResult = DnsblResult | DeviceProbeResult;

type WithoutId<T> = T extends unknown ? Omit<T, 'id' | 'check_id' | 'check_location'> : never;
/** A check result as the engine hands it to the store, before the store gives it its ids. */
export type NewCheckResult = WithoutId<CheckResult>;
export type NewDeviceProbeResult = WithoutId<DeviceProbeResult>;
export type NewDnsblResult = Omit<DnsblResult, 'id' | 'check_id' | 'check_location'>;

// `Extract<..., { probe: P }>` was never for the TLS and HTTP probes, whose result types each
// cover several probe names: the intersection keeps the result type of the probe P names.
/** A device's last result per probe (`Device.last_results`). */
export type DeviceLastResults = { [P in DeviceProbe]?: NewDeviceProbeResult & { probe: P } };
