import type { BlacklistMonitor, Device } from '../core/index.ts';

const CREATED = '2026-01-01T00:00:00.000Z';

/** Monitor `id` watches 10.x.y.z, a distinct address each, asked of the zones as z.y.x.10.<zone>. */
export function benchMonitor(id: number): BlacklistMonitor {
  return {
    id,
    target_type: 'ip',
    target_value: `10.${(id >> 16) & 255}.${(id >> 8) & 255}.${id & 255}`,
    is_enabled: true,
    last_status: null,
    last_checked_at: null,
    listed_on: [],
    created_at: CREATED,
    check_interval_s: 3600,
    failed_zones: [],
    zones: null,
    count_policy_listings: false,
    listings: [],
    rdns: null,
    name: null,
    channel_ids: null,
  };
}

/**
 * Device `id` probed at 127.0.0.1:`port`: `tcp` connects and is done (the `service` probe of a
 * plain TCP service), `http` is a web device with only `public_http` on.
 */
export function benchDevice(id: number, kind: 'tcp' | 'http', port: number, intervalS = 60): Device {
  return {
    id,
    target_type: 'ip',
    target_value: '127.0.0.1',
    service_type: kind === 'tcp' ? 'tcp' : 'web',
    scheme: kind === 'tcp' ? null : 'http',
    port,
    host_header: null,
    proxy_enabled: false,
    origin_host: null,
    origin_scheme: null,
    origin_port: null,
    check_public_http: kind === 'http',
    check_public_https: false,
    check_public_tls: false,
    check_origin_http: false,
    check_origin_tls: false,
    expect_status: kind === 'http' ? 200 : null,
    location: null,
    is_enabled: true,
    created_at: CREATED,
    check_interval_s: intervalS,
    check_locations: null,
    quorum: null,
    quorum_state: null,
    locations: null,
    status: 'pending',
    status_since: null,
    last_checked_at: null,
    last_results: {},
    name: null,
    channel_ids: null,
  };
}

/** A lookup for engines whose targets are all IP literals: any name asked is a bench bug. */
export async function noLookup(hostname: string): Promise<string[]> {
  throw new Error(`the bench resolves no names, yet ${hostname} was asked`);
}
