import * as v from 'valibot';
import { maskedConfig, parseChannelConfig, SECRET_FIELDS } from '../channels/channel-configs.ts';
import {
  CHANNEL_TYPES,
  EVENT_TYPES,
  type Channel,
  type ChannelConfig,
  type EventType,
  type NewChannel,
} from '../records/index.ts';
import type { FieldHints } from './details.ts';
import { flag, integer, oneOf, optional, text } from './field-schemas.ts';
import { failIfAny, parseFields } from './parse-fields.ts';
import type { TargetOptions } from './device-input.ts';

/**
 * The events a channel is told of when its create names none (docs/notifications.md,
 * "Channels"): what a person acts on, in the order of EVENT_TYPES.
 */
export const DEFAULT_CHANNEL_EVENTS: readonly EventType[] = [
  'device.down',
  'device.up',
  'device.tls_expiring',
  'blacklist.listed',
  'blacklist.delisted',
  'heartbeat.down',
  'heartbeat.up',
  'channel.disabled',
];

/** The bounds of `remind_every_s` (5 minutes to a week) and `escalate_after_s` (a minute to a day). */
export const REMIND_EVERY_S = { min: 300, max: 604_800 } as const;
export const ESCALATE_AFTER_S = { min: 60, max: 86_400 } as const;

const distinct = (list: readonly unknown[]) => new Set(list).size === list.length;

export const channelSchema = v.object(
  {
    name: v.pipe(text(100), v.minLength(1, 'invalid_value')),
    type: oneOf(CHANNEL_TYPES),
    // Judged by its type below (parseChannelConfig), so that each of its problems names its field.
    config: v.custom<Record<string, unknown>>(
      (input) => typeof input === 'object' && input !== null && !Array.isArray(input),
      'invalid_type',
    ),
    events: optional(
      v.pipe(
        v.array(oneOf(EVENT_TYPES), 'invalid_type'),
        v.minLength(1, 'invalid_value'),
        v.check((list) => distinct(list), 'invalid_value'),
      ),
    ),
    is_default: optional(flag()),
    remind_every_s: optional(integer(REMIND_EVERY_S.min, REMIND_EVERY_S.max)),
    escalate_after_s: optional(integer(ESCALATE_AFTER_S.min, ESCALATE_AFTER_S.max)),
    send_recovery: optional(flag()),
    is_enabled: optional(flag()),
  },
  'invalid_type',
);

const FLAG = 'true, false, 0 or 1';
export const channelHints: FieldHints = {
  name: 'text of 1 to 100 characters without control characters',
  type: `one of ${CHANNEL_TYPES.join(', ')}`,
  config: "an object with the fields of the channel's type",
  events: `a non-empty array of distinct event types among ${EVENT_TYPES.join(', ')}`,
  is_default: FLAG,
  remind_every_s: `null or an integer from ${REMIND_EVERY_S.min} to ${REMIND_EVERY_S.max} (seconds)`,
  escalate_after_s: `null or an integer from ${ESCALATE_AFTER_S.min} to ${ESCALATE_AFTER_S.max} (seconds)`,
  send_recovery: FLAG,
  is_enabled: FLAG,
};

/**
 * A create-channel body as the channel to store, its config in full, or a 400 listing every
 * problem: the fields' own, and each of the config's, named `config.<field>`.
 */
export function parseChannelInput(
  input: Record<string, unknown>,
  options: TargetOptions,
  createdAt: string,
): NewChannel {
  const { fields: f, details } = parseFields(channelSchema, input, channelHints);
  let config: ChannelConfig | undefined;
  if (f.type != null && f.config != null) {
    const parsed = parseChannelConfig(f.type, f.config, options);
    if ('details' in parsed) details.push(...parsed.details);
    else config = parsed.config;
  }
  failIfAny(details);
  const chosen = new Set<EventType>(f.events ?? DEFAULT_CHANNEL_EVENTS);
  return {
    name: f.name!,
    type: f.type!,
    config: config!,
    // One order whatever the request's, as for a webhook's events.
    events: EVENT_TYPES.filter((type) => chosen.has(type)),
    is_default: f.is_default ?? true,
    remind_every_s: f.remind_every_s ?? null,
    escalate_after_s: f.escalate_after_s ?? null,
    send_recovery: f.send_recovery ?? true,
    is_enabled: f.is_enabled ?? true,
    created_at: createdAt,
    last_delivery_at: null,
    last_delivery_status: null,
    last_delivery_error: null,
    failing_since: null,
    disabled_reason: null,
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A PATCH body of a channel with its `config` as the create is to judge it (docs/notifications.md,
 * "Changing a channel"): a config for the channel's own type is merged into the stored one, so a
 * field it leaves out keeps its stored value (a secret included) and one given as null gets its
 * default; a secret given as answers show it (`…` and its last four characters) keeps the stored
 * secret. A config for another type is taken as it is, whole. Any other body is unchanged.
 */
export function channelPatchBody(channel: Channel, body: Record<string, unknown>): Record<string, unknown> {
  const given = body.config;
  const type = Object.hasOwn(body, 'type') ? body.type : channel.type;
  if (!isObject(given) || type !== channel.type) return body;
  const stored = channel.config as Record<string, unknown>;
  const masked = maskedConfig(channel.type, channel.config) as Record<string, unknown>;
  const writeOnly: readonly string[] = SECRET_FIELDS[channel.type];
  // Built from entries, so a `__proto__` of the body stays a field (refused as unknown), never a prototype.
  const merged = new Map(Object.entries(stored));
  for (const [name, value] of Object.entries(given)) {
    const echoed = writeOnly.includes(name) && typeof value === 'string' && value === masked[name];
    if (!echoed) merged.set(name, value);
  }
  return { ...body, config: Object.fromEntries(merged) };
}

/** Whether a PATCH body moves the channel to another type: its config must then be given whole. */
export function changesChannelType(channel: Channel, body: Record<string, unknown>): boolean {
  return Object.hasOwn(body, 'type') && body.type !== channel.type;
}
