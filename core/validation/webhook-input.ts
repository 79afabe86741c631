import * as v from 'valibot';
import { EVENT_TYPES, type EventType, type NewWebhook } from '../records/index.ts';
import { normalizeHost, type TargetProblem } from '../targets/normalize-target.ts';
import { detail, type FieldHints } from './details.ts';
import { flag, oneOf, optional, text } from './field-schemas.ts';
import { failIfAny, parseFields } from './parse-fields.ts';
import type { TargetOptions } from './device-input.ts';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Each event type at most once: a list is a set here, and a repeated entry is most likely a typo. */
const distinct = (list: readonly string[]) => new Set(list).size === list.length;

export const webhookSchema = v.object(
  {
    url: text(MAX_WEBHOOK_URL_LENGTH),
    events: optional(
      v.pipe(
        v.array(oneOf(EVENT_TYPES), 'invalid_type'),
        v.minLength(1, 'invalid_value'),
        v.check((list) => distinct(list), 'invalid_value'),
      ),
    ),
    is_enabled: optional(flag()),
  },
  'invalid_type',
);

export const webhookHints: FieldHints = {
  url: `an http or https URL of at most ${MAX_WEBHOOK_URL_LENGTH} characters, on a public host, without credentials or fragment`,
  events: `a non-empty array of distinct event types among ${EVENT_TYPES.join(', ')}`,
  is_enabled: 'true, false, 0 or 1',
};

/**
 * The stored form of a webhook URL (its WHATWG serialisation: lower-case host, punycode, default
 * port dropped), or the problem with it. The host is judged by the target policy in the form the
 * URL parser gives it, which is the form a client connects to (`http://0x7f.1/` is 127.0.0.1).
 */
export function normalizeWebhookUrl(
  input: string,
  options: TargetOptions,
): { value: string } | { problem: TargetProblem | 'too_long' } {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { problem: 'invalid_value' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: 'invalid_value' };
  // Credentials in a URL would be shown in every list and log line; the signature authenticates.
  // A fragment is never sent, so it can only mislead.
  if (url.username !== '' || url.password !== '' || input.includes('#')) return { problem: 'invalid_value' };
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const judged = normalizeHost(host, options);
  if ('problem' in judged) return judged;
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) return { problem: 'too_long' };
  return { value: url.href };
}

/** A create-webhook body as the record to store (without its secret), or a 400 listing every problem. */
export function parseWebhookInput(
  input: Record<string, unknown>,
  options: TargetOptions,
  createdAt: string,
): Omit<NewWebhook, 'secret'> {
  const { fields: f, details } = parseFields(webhookSchema, input, webhookHints);
  let url = '';
  if (f.url != null) {
    const normalized = normalizeWebhookUrl(f.url, options);
    if ('problem' in normalized) details.push(detail('url', normalized.problem, webhookHints));
    else url = normalized.value;
  }
  failIfAny(details);
  const chosen = new Set<EventType>(f.events ?? [...EVENT_TYPES]);
  return {
    url,
    // One order whatever the request's, so equal subscriptions read the same.
    events: EVENT_TYPES.filter((type) => chosen.has(type)),
    is_enabled: f.is_enabled ?? true,
    created_at: createdAt,
    last_delivery_at: null,
    last_delivery_status: null,
    last_delivery_error: null,
    failing_since: null,
  };
}
