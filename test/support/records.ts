/**
 * The records tests put into a store or hand to a probe: each builder answers every field of the
 * record, set as a create with the API's defaults sets it (docs/contract.md §6.1, §6.2 and §6.7),
 * and a test names only the fields its case is about.
 */
import { EVENT_TYPES, type ChannelConfig, type ChannelType } from '../../core/index.ts';
import type { NewBlacklistMonitor, NewChannel, NewDevice, NewWebhook } from '../../core/records/index.ts';
import { DEFAULT_CHANNEL_EVENTS } from '../../core/validation/channel-input.ts';

/** When a record built here was created, unless a test says otherwise. */
export const CREATED_AT = '2026-01-01T00:00:00.000Z';

/** A webhook secret in the format the API hands out (`whsec_` and 32 bytes in base64). */
export const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

/**
 * The engine's fields of a device that was never checked (docs/engine.md, "What the API shows"),
 * and the name and channels of one created without them (docs/notifications.md, "Which channels").
 */
export const UNCHECKED = {
  check_interval_s: 60,
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
} as const;

/** The same, for a device created disabled. */
export const UNCHECKED_PAUSED = { ...UNCHECKED, status: 'paused' } as const;

/** An SSH service on example.com as a create with the defaults leaves it: enabled, never checked, no web fields. */
export function newDevice(overrides: Partial<NewDevice> = {}): NewDevice {
  return {
    target_type: 'domain',
    target_value: 'example.com',
    service_type: 'ssh',
    scheme: null,
    port: 22,
    host_header: null,
    proxy_enabled: false,
    origin_host: null,
    origin_scheme: null,
    origin_port: null,
    check_public_http: false,
    check_public_https: false,
    check_public_tls: false,
    check_origin_http: false,
    check_origin_tls: false,
    expect_status: null,
    location: null,
    is_enabled: true,
    created_at: CREATED_AT,
    ...UNCHECKED,
    ...overrides,
  };
}

/** A web device on HTTPS as a create with the defaults leaves it: public HTTPS and TLS checked, 200 expected. */
export function newWebDevice(overrides: Partial<NewDevice> = {}): NewDevice {
  return newDevice({
    service_type: 'web',
    scheme: 'https',
    port: 443,
    origin_scheme: 'https',
    origin_port: 443,
    check_public_https: true,
    check_public_tls: true,
    expect_status: 200,
    ...overrides,
  });
}

/** A blacklist monitor of example.com as a create with the defaults leaves it: enabled, never checked. */
export function newMonitor(overrides: Partial<NewBlacklistMonitor> = {}): NewBlacklistMonitor {
  return {
    target_type: 'domain',
    target_value: 'example.com',
    is_enabled: true,
    last_status: null,
    last_checked_at: null,
    listed_on: [],
    created_at: CREATED_AT,
    check_interval_s: 3600,
    failed_zones: [],
    zones: null,
    count_policy_listings: false,
    listings: [],
    rdns: null,
    name: null,
    channel_ids: null,
    ...overrides,
  };
}

/** A webhook to `url` for every event type, enabled and never delivered to, signing with `SECRET`. */
export function newWebhook(url: string, overrides: Partial<NewWebhook> = {}): NewWebhook {
  return {
    url,
    events: [...EVENT_TYPES],
    is_enabled: true,
    created_at: CREATED_AT,
    last_delivery_at: null,
    last_delivery_status: null,
    last_delivery_error: null,
    failing_since: null,
    secret: SECRET,
    ...overrides,
  };
}

/**
 * A channel of `type` sending to `config`, as a create with the defaults leaves it: the default
 * events, told of every record, no reminders or escalation, recoveries sent, never delivered to.
 */
export function channelRecord(
  type: ChannelType,
  config: ChannelConfig,
  overrides: Partial<NewChannel> = {},
): NewChannel {
  return {
    name: `${type} ops`,
    type,
    config,
    events: [...DEFAULT_CHANNEL_EVENTS],
    is_default: true,
    remind_every_s: null,
    escalate_after_s: null,
    send_recovery: true,
    is_enabled: true,
    created_at: CREATED_AT,
    last_delivery_at: null,
    last_delivery_status: null,
    last_delivery_error: null,
    failing_since: null,
    disabled_reason: null,
    ...overrides,
  };
}
