/**
 * What the channel tests share: events as the engine writes them, notifications made of them, and
 * a channel delivery whose host names all resolve to 127.0.0.1 (no test asks a real DNS server).
 */
import type {
  BlacklistMonitor,
  Device,
  Heartbeat,
  HeartbeatEventFields,
  EventItem,
  EventType,
  MonitoringEvent,
  Notification,
  NotificationIncident,
} from '../../core/internal.ts';
import { ManualClock } from '../../core/index.ts';
import { channelDeliveryFrom, type ChannelSenderOptions } from '../../engine/channels/channel-sender.ts';
import type { ChannelDelivery } from '../../engine/channels/channel-delivery.ts';

export const T0 = '2026-03-01T10:00:00.000Z';
/** Five minutes after T0. */
export const T5 = '2026-03-01T10:05:00.000Z';
/** Two hours and five minutes after T0. */
export const T125 = '2026-03-01T12:05:00.000Z';

/** Every name to 127.0.0.1, where the fakes listen. */
export const LOOPBACK = async (): Promise<string[]> => ['127.0.0.1'];

/** A web device that is down: its HTTPS probe timed out, the service refused; two of three locations failing. */
export function downDevice(id: number, overrides: Partial<Device> = {}): Device {
  return {
    id,
    target_type: 'domain',
    target_value: `web${id}.example.com`,
    service_type: 'web',
    scheme: 'https',
    port: 443,
    host_header: null,
    proxy_enabled: false,
    origin_host: null,
    origin_scheme: null,
    origin_port: null,
    check_public_http: false,
    check_public_https: true,
    check_public_tls: true,
    check_origin_http: false,
    check_origin_tls: false,
    expect_status: null,
    location: null,
    is_enabled: true,
    created_at: '2026-01-01T00:00:00.000Z',
    check_interval_s: 60,
    check_locations: ['eu-west', 'us-east', 'ap-south'],
    quorum: 2,
    quorum_state: 'met',
    locations: {
      'eu-west': { status: 'failing', last_checked_at: T0, response_ms: null, error: 'timeout' },
      'us-east': { status: 'failing', last_checked_at: T0, response_ms: null, error: 'timeout' },
      'ap-south': { status: 'up', last_checked_at: T0, response_ms: 120, error: null },
    },
    status: 'down',
    status_since: T0,
    last_checked_at: T0,
    last_results: {
      public_https: {
        probe: 'public_https',
        checked_at: T0,
        ok: false,
        response_ms: null,
        error: 'timeout',
        http_status: null,
        location: null,
      },
      public_tls: {
        probe: 'public_tls',
        checked_at: T0,
        ok: true,
        response_ms: 40,
        error: null,
        tls_valid_to: '2026-06-01T00:00:00.000Z',
        tls_days_left: 92,
        tls_error: null,
      },
    },
    name: null,
    channel_ids: null,
    ...overrides,
  };
}

/** A monitor listed on Spamhaus ZEN, with what the listing means and where to delist. */
export function listedMonitor(id: number, overrides: Partial<BlacklistMonitor> = {}): BlacklistMonitor {
  return {
    id,
    target_type: 'ip',
    target_value: '192.0.2.10',
    is_enabled: true,
    last_status: 'listed',
    last_checked_at: T0,
    listed_on: ['zen.spamhaus.org'],
    created_at: '2026-01-01T00:00:00.000Z',
    check_interval_s: 3600,
    failed_zones: [],
    zones: null,
    count_policy_listings: false,
    listings: [
      {
        zone: 'zen.spamhaus.org',
        answer: '127.0.0.2',
        meaning: 'Spamhaus SBL: a known spam source',
        policy: false,
        delist_url: 'https://check.spamhaus.org/listed/?searchterm=192.0.2.10',
        since: T0,
      },
    ],
    rdns: null,
    name: null,
    channel_ids: null,
    ...overrides,
  };
}

export function event(id: number, type: EventType, record: Device | BlacklistMonitor, at = T0): MonitoringEvent {
  const data =
    'service_type' in record
      ? { ...record, previous_status: null }
      : { ...record, previous_status: null, status: record.last_status };
  return { id, type, user_id: 1, created_at: at, data };
}

export function incident(
  id: number,
  closedAt: string | null = null,
  acknowledgedAt: string | null = null,
): NotificationIncident {
  return { id, opened_at: T0, closed_at: closedAt, acknowledged_at: acknowledgedAt };
}

/** A heartbeat as its `heartbeat.down` carries it: a nightly job that missed its 10:00 deadline. */
export function lateHeartbeat(
  id: number,
  overrides: Partial<Heartbeat & HeartbeatEventFields> = {},
): Heartbeat & HeartbeatEventFields {
  return {
    id,
    name: null,
    period_s: null,
    schedule: '55 9 * * *',
    time_zone: 'Europe/Berlin',
    grace_s: 300,
    max_runtime_s: null,
    min_runtime_s: null,
    is_enabled: true,
    channel_ids: null,
    status: 'down',
    status_since: T0,
    last_ping_at: '2026-02-28T09:55:07.000Z',
    last_duration_ms: null,
    next_due_at: null,
    created_at: '2026-01-01T00:00:00.000Z',
    cause: 'late',
    last_ping_body: null,
    exit_status: null,
    ...overrides,
  };
}

/** Heartbeat `id` went down at T0 (its incident `id`), as `lateHeartbeat` with `overrides`. */
export const heartbeatDownItem = (
  id: number,
  overrides: Partial<Heartbeat & HeartbeatEventFields> = {},
): EventItem => ({
  reason: 'event',
  event: {
    id,
    type: 'heartbeat.down',
    user_id: 1,
    created_at: T0,
    data: { ...lateHeartbeat(id, overrides), previous_status: 'up' },
  },
  incident: incident(id),
});

/** Heartbeat `id` pinged again at T5: its incident lasted 5 min. */
export const heartbeatUpItem = (id: number, overrides: Partial<Heartbeat> = {}): EventItem => ({
  reason: 'event',
  event: {
    id: 1000 + id,
    type: 'heartbeat.up',
    user_id: 1,
    created_at: T5,
    data: {
      ...lateHeartbeat(id, { status: 'up', status_since: T5, last_ping_at: T5, cause: null, ...overrides }),
      previous_status: 'down',
    },
  },
  incident: incident(id, T5),
});

/** One item per event, `total` counting them all. */
export function notification(items: EventItem[], at = T0): Notification {
  return { at, items, total: items.length };
}

/** Device `id` went down at T0 (its incident `id`). */
export const downItem = (id: number, overrides: Partial<Device> = {}): EventItem => ({
  reason: 'event',
  event: event(id, 'device.down', downDevice(id, overrides)),
  incident: incident(id),
});

/** Device `id` came back up at T5: its incident lasted 5 min. */
export const upItem = (id: number): EventItem => ({
  reason: 'event',
  event: event(
    1000 + id,
    'device.up',
    downDevice(id, { status: 'up', status_since: T5, locations: null, last_results: {} }),
    T5,
  ),
  incident: incident(id, T5),
});

/** Device `id` is still down at T125, 2 h 5 min after T0. */
export const reminderItem = (id: number): EventItem => ({ ...downItem(id), reason: 'reminder' });

/** The 200 devices of a datacenter, down together. */
export const twoHundredDown = (): Notification => notification(Array.from({ length: 200 }, (_, i) => downItem(i + 1)));

/** A name that is HTML, markdown and a mention at once. */
export const HOSTILE_NAME =
  '<b>x</b> & <script>alert("x")</script> *bold* [link](http://evil.example) <!channel> @everyone';

/** A channel delivery over the test's lookup, loopback allowed, at a manual clock. */
export function testDelivery(options: ChannelSenderOptions = {}): ChannelDelivery {
  return channelDeliveryFrom({
    lookup: LOOPBACK,
    allowPrivateTargets: true,
    clock: new ManualClock(Date.parse(T0)),
    // No attempt here waits it out: the fakes answer at once.
    timeoutMs: 30_000,
    ...options,
  });
}
