/**
 * A notification as every kind's message says it (docs/notifications.md, "Messages"): a title,
 * and per item who, what, since when, why and a link, in plain text. Each kind then writes this in
 * its service's format, escaped its way and within its limits. A down and its recovery in one
 * notification become one item saying both.
 */
import {
  MAX_LISTED_ITEMS,
  type BlacklistMonitor,
  type Device,
  type EventData,
  type EventItem,
  type Notification,
  type NotificationItem,
  type NotificationReason,
} from '../../../core/internal.ts';
import type { HeartbeatData } from './describe-heartbeat.ts';
import { heartbeatDownWhat } from './describe-heartbeat.ts';
import {
  blacklistListings,
  deviceFailures,
  heartbeatFailures,
  locationVerdicts,
  recordKind,
  recordLink,
  recordName,
  recordTarget,
  tlsExpiry,
  type WhyLine,
} from './describe-record.ts';
import { escalatedPhrase, eventPhrase, stillPhrase, type Phrase } from './phrases.ts';
import { formatDuration, formatTime, oneLine, truncate } from './text.ts';

export type { WhyLine } from './describe-record.ts';

/** How an item reads: its colour in Discord and Teams, its priority in ntfy, its emoji. */
export type Tone = 'down' | 'up' | 'warning' | 'info' | 'test';

/** The incident an item speaks of, as PagerDuty and mail threading name it. */
export interface IncidentRef {
  /** `device-incident-12`: unique per incident, the same in every message about it. */
  key: string;
  /** This item opens it (a down, a listing, an escalation) or tells it whole (a down and its recovery). */
  opens: boolean;
  /** This item closes it (a recovery). */
  closes: boolean;
}

/** One item of a message, in plain text. */
export interface ItemSummary {
  tone: Tone;
  reason: NotificationReason;
  /** The record's name, else its target (`example.com:443 (web)`); the channel's name for a test. */
  name: string;
  /** What the record is or did, after its name: `is down`, `is up again after 5 min`. */
  what: string;
  /** Since when, or from when to when: `since 2026-01-01 10:00 UTC`. */
  when: string;
  why: WhyLine[];
  /** The record under `--public-url`; null without one. */
  link: string | null;
  incident: IncidentRef | null;
  /** What PagerDuty calls the source: the record's target. */
  source: string;
  /** The event's type; null for a test. */
  eventType: string | null;
  /** The event's time (the test's for a test). */
  at: string;
}

export interface MessageSummary {
  /** The worst tone among the items. */
  tone: Tone;
  /** One line: an item's `name what` alone, else the counts (`200 devices down`). */
  title: string;
  /** At most MAX_LISTED_ITEMS, in the notification's order. */
  items: ItemSummary[];
  /** Items that fell due but are not listed: counted in "… and N more". */
  hidden: number;
}

const TONE_ORDER: readonly Tone[] = ['down', 'warning', 'up', 'info', 'test'];

const OPENING = new Set(['device.down', 'blacklist.listed', 'heartbeat.down']);
const CLOSING = new Set(['device.up', 'blacklist.delisted', 'heartbeat.up']);

interface Described {
  summary: ItemSummary;
  phrase: Phrase;
}

function describeEvent(item: EventItem, at: number, publicUrl: string | null): Described {
  const { event, incident, reason } = item;
  const data = event.data;
  const kind = recordKind(data);
  const device = kind === 'device' ? (data as Device) : undefined;
  const monitor = kind === 'blacklist-monitor' ? (data as BlacklistMonitor) : undefined;
  const heartbeat = kind === 'heartbeat' ? (data as HeartbeatData) : undefined;
  const opensType = OPENING.has(event.type);
  const key = incident === null ? null : `${kind}-incident-${incident.id}`;
  const opened =
    incident?.opened_at ??
    device?.status_since ??
    heartbeat?.status_since ??
    monitor?.listings.map((listing) => listing.since).sort()[0] ??
    event.created_at;
  const problem = monitor === undefined ? 'down' : 'listed';
  const failures =
    device !== undefined
      ? deviceFailures(device)
      : monitor !== undefined
        ? blacklistListings(monitor)
        : heartbeat !== undefined
          ? heartbeatFailures(heartbeat)
          : [];
  const base = {
    reason,
    name: recordName(data),
    link: recordLink(publicUrl, data),
    source: truncate(oneLine(recordTarget(data)), 255),
    eventType: event.type,
    at: event.created_at,
    incident:
      key === null ? null : { key, opens: reason === 'escalation' || (reason === 'event' && opensType), closes: false },
  };
  if (kind === 'channel') return channelDisabled(base, data);
  const openFor = formatDuration(at - Date.parse(opened));
  switch (reason) {
    case 'reminder':
      return {
        summary: {
          ...base,
          tone: 'down',
          what: `is still ${problem}`,
          when: `for ${openFor}, since ${formatTime(opened)}`,
          why: failures,
        },
        phrase: stillPhrase(kind),
      };
    case 'escalation':
      return {
        summary: {
          ...base,
          tone: 'down',
          what: `is ${problem}, unacknowledged for ${openFor}`,
          when: `since ${formatTime(opened)}`,
          why: failures,
        },
        phrase: escalatedPhrase(kind),
      };
    case 'acknowledgement':
      return {
        summary: {
          ...base,
          tone: 'info',
          what: 'was acknowledged',
          when: `at ${formatTime(incident?.acknowledged_at ?? new Date(at).toISOString())}, ${problem} since ${formatTime(opened)}`,
          why: [],
        },
        phrase: ['incident acknowledged', 'incidents acknowledged'],
      };
    default:
      break;
  }
  const phrase = eventPhrase(event.type, kind);
  if (opensType) {
    const what =
      monitor !== undefined
        ? `is listed on ${monitor.listed_on.length} of its blacklists`
        : heartbeat !== undefined
          ? heartbeatDownWhat(heartbeat)
          : 'is down';
    return { summary: { ...base, tone: 'down', what, when: `since ${formatTime(opened)}`, why: failures }, phrase };
  }
  if (CLOSING.has(event.type)) {
    const again = monitor === undefined ? 'is up again' : 'is no longer listed';
    const closed = incident?.closed_at ?? event.created_at;
    const lasted = incident === null ? null : formatDuration(Date.parse(closed) - Date.parse(incident.opened_at));
    return {
      summary: {
        ...base,
        tone: 'up',
        what: lasted === null ? again : `${again} after ${lasted} ${problem}`,
        when:
          incident === null
            ? `at ${formatTime(closed)}`
            : `${problem} from ${formatTime(incident.opened_at)} to ${formatTime(closed)}`,
        why: [],
        incident: key === null ? null : { key, opens: false, closes: true },
      },
      phrase,
    };
  }
  const when = `at ${formatTime(event.created_at)}`;
  switch (event.type) {
    case 'device.tls_expiring':
      return {
        summary: {
          ...base,
          tone: 'warning',
          what: 'has a TLS certificate about to expire',
          when,
          why: tlsExpiry(device!),
        },
        phrase,
      };
    case 'device.location_failing':
      return {
        summary: {
          ...base,
          tone: 'warning',
          what: 'is failing from some of its locations',
          when,
          why: locationVerdicts(device!),
        },
        phrase,
      };
    case 'device.maintenance_started':
      return { summary: { ...base, tone: 'info', what: 'entered a maintenance window', when, why: [] }, phrase };
    case 'device.maintenance_ended':
      return { summary: { ...base, tone: 'info', what: 'left its maintenance window', when, why: [] }, phrase };
    default: {
      const verb = event.type.endsWith('.paused')
        ? 'was paused'
        : event.type.endsWith('.resumed')
          ? 'was resumed'
          : event.type;
      return { summary: { ...base, tone: 'info', what: verb, when, why: [] }, phrase };
    }
  }
}

/** A channel the server disabled: which, why, and what it takes to send to it again. */
function channelDisabled(base: Omit<ItemSummary, 'tone' | 'what' | 'when' | 'why'>, data: EventData): Described {
  const reason = (data as { disabled_reason?: unknown }).disabled_reason;
  return {
    summary: {
      ...base,
      tone: 'warning',
      what: `was disabled${typeof reason === 'string' ? ` (${reason})` : ''}`,
      when: `at ${formatTime(base.at)}`,
      why: [
        {
          text: 'its service refused it for good (a deleted webhook, a revoked token or key): nothing is sent to it until it is mended and enabled',
          link: null,
        },
      ],
    },
    phrase: ['channel disabled', 'channels disabled'],
  };
}

function describeItem(item: NotificationItem, notification: Notification, publicUrl: string | null): Described {
  if (item.reason === 'test') {
    return {
      summary: {
        tone: 'test',
        reason: 'test',
        name: truncate(oneLine(item.channel.name), 300),
        what: 'works: this is a test message from monitoring-api',
        when: `at ${formatTime(notification.at)}`,
        why: [],
        link: null,
        incident: null,
        source: 'monitoring-api',
        eventType: null,
        at: notification.at,
      },
      phrase: ['test message', 'test messages'],
    };
  }
  return describeEvent(item, Date.parse(notification.at), publicUrl);
}

/**
 * A down and its recovery, both in this notification, as one item: "was down for 5 min and is up
 * again", with the down's why.
 */
function merged(down: ItemSummary, up: ItemSummary): ItemSummary {
  const lasted = /after (.+) (down|listed)$/.exec(up.what);
  const problem = down.what.startsWith('is down') ? 'down' : 'listed';
  const how = lasted === null ? '' : ` for ${lasted[1]}`;
  return {
    ...down,
    tone: 'up',
    what: problem === 'down' ? `was down${how} and is up again` : `was listed${how} and is no longer listed`,
    when: up.when,
    incident: down.incident === null ? null : { key: down.incident.key, opens: true, closes: true },
  };
}

const MERGED_PHRASE: Phrase = ['down and up again', 'down and up again'];

/**
 * The notification as plain text: the title counts every item given, the message lists at most
 * MAX_LISTED_ITEMS, and `hidden` counts the rest, those the dispatcher did not pass included.
 */
export function describe(notification: Notification, publicUrl: string | null): MessageSummary {
  const all: Described[] = [];
  const openedAt = new Map<string, number>();
  for (const item of notification.items) {
    const next = describeItem(item, notification, publicUrl);
    const ref = next.summary.incident;
    const earlier = ref === null ? undefined : openedAt.get(ref.key);
    if (ref !== null && ref.closes && earlier !== undefined && item.reason === 'event') {
      all[earlier] = { summary: merged(all[earlier]!.summary, next.summary), phrase: MERGED_PHRASE };
      openedAt.delete(ref.key);
      continue;
    }
    if (ref !== null && ref.opens && item.reason === 'event') openedAt.set(ref.key, all.length);
    all.push(next);
  }
  const items = all.slice(0, MAX_LISTED_ITEMS).map((d) => d.summary);
  const unknown = Math.max(0, notification.total - notification.items.length);
  const hidden = all.length - items.length + unknown;
  const tone = TONE_ORDER.find((t) => items.some((item) => item.tone === t)) ?? 'info';
  const only = items.length === 1 && hidden === 0 ? items[0] : undefined;
  return { tone, title: only !== undefined ? `${only.name} ${only.what}` : countsTitle(all, unknown), items, hidden };
}

/** `200 devices down`, `12 devices down, 3 devices up again`, then `and 5 more` for those not given. */
function countsTitle(described: readonly Described[], unknown: number): string {
  const counts = new Map<string, { phrase: Phrase; n: number }>();
  for (const { phrase } of described) {
    const count = counts.get(phrase[1]) ?? { phrase, n: 0 };
    count.n += 1;
    counts.set(phrase[1], count);
  }
  const parts = [...counts.values()].map(({ phrase: [one, many], n }) => `${n} ${n === 1 ? one : many}`);
  return unknown > 0 ? `${parts.join(', ')}, and ${unknown} more` : parts.join(', ');
}
