/**
 * What a message says of the record an event is about (docs/notifications.md, "Messages"): its
 * name, else its target, and the why of its state: a device's failing probes and its locations'
 * verdicts, a blacklist monitor's listings with what each means and where to ask for removal, a
 * heartbeat's missed deadline or reported failure (describe-heartbeat.ts).
 */
import type { BlacklistMonitor, Device, EventData } from '../../../core/internal.ts';
import { heartbeatTarget, heartbeatWhy, isHeartbeatData, type HeartbeatData } from './describe-heartbeat.ts';
import { formatTime, oneLine, truncate } from './text.ts';

/** One line of a message's "why", with a link it may carry (a DNSBL's delist page). */
export interface WhyLine {
  text: string;
  link: { url: string; label: string } | null;
}

/**
 * The kinds of record events are about, as they name incidents and links: a channel is the record
 * of a `channel.disabled` event.
 */
export type RecordKind = 'device' | 'blacklist-monitor' | 'heartbeat' | 'channel';

/** The longest name, target or reason line a message shows: what is longer is cut (`…`). */
const MAX_PIECE = 300;
/** The most "why" lines one item shows (a device has at most six probes and sixteen locations). */
const MAX_WHY_LINES = 12;

export function recordKind(data: EventData): RecordKind {
  if ('service_type' in data) return 'device';
  if ('target_value' in data) return 'blacklist-monitor';
  return isHeartbeatData(data) ? 'heartbeat' : 'channel';
}

/**
 * The record's `name` when it has one (an optional field, read defensively: an event written
 * before it existed has none), else what it checks: a device's target, port and service, a
 * monitor's target, a heartbeat's id and schedule.
 */
export function recordName(data: EventData): string {
  const name = (data as { name?: unknown }).name;
  if (typeof name === 'string' && name.trim() !== '') return truncate(oneLine(name), MAX_PIECE);
  return truncate(oneLine(recordTarget(data)), MAX_PIECE);
}

/**
 * What the record checks: `example.com:443 (web)`, a monitor's `192.0.2.1`, `heartbeat 3 (every
 * 1 h)`; a channel's type.
 */
export function recordTarget(data: EventData): string {
  switch (recordKind(data)) {
    case 'device': {
      const device = data as Device;
      return `${device.target_value}:${device.port} (${device.service_type})`;
    }
    case 'blacklist-monitor':
      return (data as BlacklistMonitor).target_value;
    case 'heartbeat':
      return heartbeatTarget(data as HeartbeatData);
    default:
      return `${String((data as { type?: unknown }).type)} channel`;
  }
}

/** The record under `--public-url` (its `get` route); null without one. */
export function recordLink(publicUrl: string | null, data: EventData): string | null {
  if (publicUrl === null) return null;
  const kind = recordKind(data);
  const paths: Record<RecordKind, string> = {
    device: 'devices',
    'blacklist-monitor': 'blacklist-monitors',
    heartbeat: 'heartbeats',
    channel: 'channels',
  };
  return `${publicUrl}/${paths[kind]}/get?id=${data.id}`;
}

/** Only http and https URLs become links: a `javascript:` one must never be clickable. */
export function isWebUrl(url: string): boolean {
  return /^https?:\/\/[^\s]+$/i.test(url);
}

const line = (text: string, link: WhyLine['link'] = null): WhyLine => ({
  text: truncate(oneLine(text), MAX_PIECE),
  link,
});

/** Why a device is down: its failing probes, then its locations' verdicts and the quorum. */
export function deviceFailures(device: Device): WhyLine[] {
  const lines: WhyLine[] = [];
  for (const result of Object.values(device.last_results)) {
    if (result === undefined || result.ok) continue;
    const extra: string[] = [];
    if ('http_status' in result && result.http_status !== null) extra.push(`HTTP ${result.http_status}`);
    if ('tls_error' in result && result.tls_error !== null && result.tls_error !== result.error) {
      extra.push(result.tls_error);
    }
    lines.push(line(`${result.probe}: ${result.error ?? 'failed'}${extra.length > 0 ? ` (${extra.join(', ')})` : ''}`));
  }
  return [...lines, ...locationVerdicts(device)].slice(0, MAX_WHY_LINES);
}

/**
 * Each location's verdict (`eu-west: failing (timeout)`), after the quorum; none for a device
 * checked from any one location.
 */
export function locationVerdicts(device: Device): WhyLine[] {
  if (device.locations === null) return [];
  const names = Object.keys(device.locations).sort();
  const lines = names.map((name) => {
    const verdict = device.locations![name]!;
    return line(`location ${name}: ${verdict.status}${verdict.error === null ? '' : ` (${verdict.error})`}`);
  });
  const quorum = device.quorum === null ? [] : [line(`quorum: ${device.quorum} of ${names.length} locations`)];
  return [...quorum, ...lines];
}

/** A device's TLS certificates: when each expires. */
export function tlsExpiry(device: Device): WhyLine[] {
  const lines: WhyLine[] = [];
  for (const result of Object.values(device.last_results)) {
    if (result === undefined || !('tls_valid_to' in result) || result.tls_valid_to === null) continue;
    const days = result.tls_days_left === null ? '' : ` (${result.tls_days_left} days left)`;
    lines.push(line(`${result.probe}: certificate valid until ${formatTime(result.tls_valid_to)}${days}`));
  }
  return lines.slice(0, MAX_WHY_LINES);
}

/**
 * Why a monitor is listed: each zone with its answer, what the answer means, whether it is a
 * policy listing, since when, and the delist page; then the zones whose lookup failed.
 */
export function blacklistListings(monitor: BlacklistMonitor): WhyLine[] {
  const lines = monitor.listings.map((listing) => {
    const meaning = listing.meaning === null ? '' : `: ${listing.meaning}`;
    const policy = listing.policy ? ' (a policy listing, not a spam report)' : '';
    const link =
      listing.delist_url === null || !isWebUrl(listing.delist_url)
        ? null
        : { url: listing.delist_url, label: 'delisting' };
    return line(
      `${listing.zone} answers ${listing.answer}${meaning}${policy}, since ${formatTime(listing.since)}`,
      link,
    );
  });
  if (monitor.failed_zones.length > 0) lines.push(line(`lookups failed: ${monitor.failed_zones.join(', ')}`));
  return lines.slice(0, MAX_WHY_LINES);
}

/** Why a heartbeat is down: its cause with its figures, its last ping, its last body's start. */
export function heartbeatFailures(heartbeat: HeartbeatData): WhyLine[] {
  return heartbeatWhy(heartbeat)
    .map((text) => line(text))
    .slice(0, MAX_WHY_LINES);
}
