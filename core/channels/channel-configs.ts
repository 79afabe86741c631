/**
 * The `config` of each channel type (docs/notifications.md, "Channel types"): its fields, which of
 * them are secrets, and how a request's config becomes the stored one.
 */
import * as v from 'valibot';
import type { ErrorDetail } from '../http/api-error.ts';
import { PAGERDUTY_SEVERITIES, type ChannelConfigs, type ChannelType } from '../records/channels.ts';
import { detail, type FieldHints } from '../validation/details.ts';
import { oneOf, text } from '../validation/field-schemas.ts';
import { parseFields } from '../validation/parse-fields.ts';
import { normalizeWebhookUrl, MAX_WEBHOOK_URL_LENGTH } from '../validation/webhook-input.ts';
import type { TargetOptions } from '../validation/device-input.ts';

/**
 * An address as a mail server takes it in `RCPT TO`: a local part and a domain, no display name,
 * no spaces, at most 254 characters (RFC 5321 §4.5.3.1.3). Stricter than RFC 5322 on purpose: a
 * quoted local part or a comment is almost always a typo here.
 */
export const ADDRESS =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
/** A bot token as BotFather issues it: the bot's numeric id, a colon, and the secret part. */
export const BOT_TOKEN = /^[0-9]{1,20}:[A-Za-z0-9_-]{20,100}$/;
/** A chat's numeric id (negative for groups and channels) or a public channel's `@username`. */
export const CHAT_ID = /^(?:-?[0-9]{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/;
/** An integration key of PagerDuty's Events API v2: 32 characters. */
export const ROUTING_KEY = /^[A-Za-z0-9]{32}$/;
/** ntfy's topic names: letters, digits, `_` and `-`, at most 64. */
export const TOPIC = /^[A-Za-z0-9_-]{1,64}$/;

const matching = (pattern: RegExp, max: number) =>
  v.pipe(
    text(max),
    v.check((s) => pattern.test(s), 'invalid_value'),
  );
const url = () => text(MAX_WEBHOOK_URL_LENGTH);
const webhookConfig = v.object({ webhook_url: url() }, 'invalid_type');

const SCHEMAS = {
  email: v.object(
    {
      to: v.pipe(
        v.array(matching(ADDRESS, 254), 'invalid_type'),
        v.minLength(1, 'invalid_value'),
        v.maxLength(10, 'invalid_value'),
      ),
    },
    'invalid_type',
  ),
  slack: webhookConfig,
  discord: webhookConfig,
  teams: webhookConfig,
  telegram: v.object(
    {
      bot_token: matching(BOT_TOKEN, 128),
      chat_id: v.pipe(
        v.union([v.string(), v.pipe(v.number(), v.integer(), v.transform(String))], 'invalid_type'),
        v.check((s) => CHAT_ID.test(s), 'invalid_value'),
      ),
    },
    'invalid_type',
  ),
  pagerduty: v.object(
    {
      routing_key: matching(ROUTING_KEY, 32),
      severity: v.optional(v.nullable(oneOf(PAGERDUTY_SEVERITIES))),
    },
    'invalid_type',
  ),
  ntfy: v.object(
    {
      server_url: url(),
      topic: matching(TOPIC, 64),
      token: v.optional(v.nullable(text(256))),
    },
    'invalid_type',
  ),
} as const;

const HINTS: Readonly<Record<ChannelType, FieldHints>> = {
  email: { to: 'an array of 1 to 10 mail addresses (local@domain, at most 254 characters each)' },
  slack: { webhook_url: 'an incoming-webhook URL (http or https, at most 2048 characters)' },
  discord: { webhook_url: 'a webhook URL (http or https, at most 2048 characters)' },
  teams: { webhook_url: 'a Workflows webhook URL (http or https, at most 2048 characters)' },
  telegram: {
    bot_token: "a bot token as BotFather gives it (the bot's id, a colon, then its secret)",
    chat_id: 'a numeric chat id or a public channel @username',
  },
  pagerduty: {
    routing_key: 'an Events API v2 integration key of 32 letters and digits',
    severity: `one of ${PAGERDUTY_SEVERITIES.join(', ')}`,
  },
  ntfy: {
    server_url: 'the ntfy server (http or https, at most 2048 characters)',
    topic: 'a topic of 1 to 64 letters, digits, _ or -',
    token: 'an access token of at most 256 characters',
  },
};

/** The config fields that are secrets: write-only, shown as `…` and their last four characters. */
export const SECRET_FIELDS: Readonly<Record<ChannelType, readonly string[]>> = {
  email: [],
  slack: ['webhook_url'],
  discord: ['webhook_url'],
  teams: ['webhook_url'],
  telegram: ['bot_token'],
  pagerduty: ['routing_key'],
  ntfy: ['token'],
};

/** The URL fields, judged by the target policy as webhook URLs are (docs/contract.md §5). */
const URL_FIELDS: Readonly<Record<ChannelType, readonly string[]>> = {
  email: [],
  slack: ['webhook_url'],
  discord: ['webhook_url'],
  teams: ['webhook_url'],
  telegram: [],
  pagerduty: [],
  ntfy: ['server_url'],
};

/**
 * A request's `config` for a channel of `type` as it is stored, or every problem with it, each
 * named `config.<field>`.
 */
export function parseChannelConfig<T extends ChannelType>(
  type: T,
  input: unknown,
  options: TargetOptions,
): { config: ChannelConfigs[T] } | { details: ErrorDetail[] } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return {
      details: [detail('config', 'invalid_type', { config: `an object with the fields of a ${type} channel` })],
    };
  }
  const hints = HINTS[type];
  const { fields, details } = parseFields(SCHEMAS[type], input as Record<string, unknown>, hints);
  const config: Record<string, unknown> = { ...fields };
  for (const name of URL_FIELDS[type]) {
    const value = config[name];
    if (typeof value !== 'string') continue;
    const normalized = normalizeWebhookUrl(value, options);
    if ('problem' in normalized) details.push(detail(name, normalized.problem, hints));
    else config[name] = normalized.value;
  }
  if (details.length > 0) {
    return { details: details.map((d) => ({ ...d, field: `config.${d.field}`, message: `config.${d.message}` })) };
  }
  if (type === 'pagerduty') config.severity ??= 'critical';
  if (type === 'ntfy') config.token ??= null;
  return { config: config as ChannelConfigs[T] };
}

/** The config as an answer shows it: each secret as `…` and its last four characters. */
export function maskedConfig<T extends ChannelType>(type: T, config: ChannelConfigs[T]): ChannelConfigs[T] {
  const masked: Record<string, unknown> = { ...config };
  for (const name of SECRET_FIELDS[type]) {
    const value = masked[name];
    if (typeof value === 'string') masked[name] = `…${value.slice(-4)}`;
  }
  return masked as ChannelConfigs[T];
}
