/**
 * The webhooks resource in the OpenAPI document: its create body (from the validator's schema),
 * its record, the create answer with the secret, and their envelopes.
 */
import type { JsonSchema } from '@valibot/to-json-schema';
import {
  EVENT_TYPES,
  WEBHOOK_DELIVERY_STATUSES,
  type CreatedWebhook,
  type Webhook,
  type WebhookAttempt,
} from '../records/index.ts';
import type { WebhookTestResult } from '../webhook-sender.ts';
import { nullable, ref } from './schema-helpers.ts';

/** Written by hand: the converter has no rule for the `events` checks (non-empty, distinct). */
export function webhookInputSchema(): JsonSchema {
  return {
    type: 'object',
    description: 'A webhook endpoint to create. A field given as null means the same as leaving it out.',
    required: ['url'],
    additionalProperties: false,
    properties: {
      url: {
        type: 'string',
        maxLength: 2048,
        description:
          'An http or https URL on a public host (forbidden_target otherwise, unless the server allows private targets), without credentials or fragment. Stored in its normalised form (lower-case host, default port dropped); the same user cannot add one url twice (duplicate_webhook).',
      },
      events: {
        description: 'The event types to receive. Default all.',
        anyOf: [
          { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: [...EVENT_TYPES] } },
          { type: 'null' },
        ],
      },
      is_enabled: {
        description: 'Default true.',
        anyOf: [{ type: 'boolean' }, { type: 'integer', enum: [0, 1] }, { type: 'null' }],
      },
    },
  };
}

function webhookProperties(): { [K in keyof Webhook]-?: JsonSchema } {
  return {
    id: ref('Id'),
    url: { type: 'string' },
    events: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: [...EVENT_TYPES] } },
    is_enabled: { type: 'boolean' },
    created_at: ref('Timestamp'),
    last_delivery_at: {
      description: 'When the last delivery attempt ended; null before the first.',
      ...nullable(ref('Timestamp')),
    },
    last_delivery_status: {
      description: 'delivered, or failing from a failed attempt until one succeeds; null before the first.',
      ...nullable({ type: 'string', enum: [...WEBHOOK_DELIVERY_STATUSES] }),
    },
    last_delivery_error: {
      description:
        'Why the last attempt failed (timeout, http_500, ECONNREFUSED, ...); null when it succeeded, or before any.',
      ...nullable({ type: 'string' }),
    },
    failing_since: {
      description: 'When the current run of failed attempts began; null while deliveries succeed.',
      ...nullable(ref('Timestamp')),
    },
  };
}

const attempt: { [K in keyof WebhookAttempt]-?: JsonSchema } = {
  id: { description: 'Larger ids are later attempts.', ...ref('Id') },
  event_id: { description: 'The event delivered: the webhook-id header the endpoint received.', ...ref('Id') },
  event_type: { type: 'string', enum: [...EVENT_TYPES] },
  attempt: {
    type: 'integer',
    minimum: 1,
    description: '1 for the first attempt at this event, 2 for its first retry, ...',
  },
  attempted_at: { description: 'When the attempt ended.', ...ref('Timestamp') },
  http_status: {
    description: 'The HTTP status the endpoint answered; null when it never answered.',
    ...nullable({ type: 'integer' }),
  },
  error: {
    description:
      'Why the attempt failed (timeout, http_500, ECONNREFUSED, forbidden_address, ...); null when delivered (a 2xx).',
    ...nullable({ type: 'string' }),
  },
  duration_ms: {
    description: 'How long the attempt took, connecting included, in whole milliseconds.',
    ...nullable({ type: 'integer', minimum: 0 }),
  },
};

const testResult: { [K in keyof WebhookTestResult]-?: JsonSchema } = {
  delivered: { type: 'boolean', description: 'True when the endpoint answered a 2xx.' },
  http_status: attempt.http_status!,
  error: attempt.error!,
  duration_ms: {
    type: 'integer',
    minimum: 0,
    description: 'How long the attempt took, connecting included, in whole milliseconds.',
  },
  attempted_at: attempt.attempted_at!,
};

export function webhookSchemas(): Record<string, JsonSchema> {
  const properties = webhookProperties();
  const created: { [K in keyof CreatedWebhook]-?: JsonSchema } = {
    ...properties,
    secret: {
      type: 'string',
      pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
      description: 'The signing secret, shown only here: `whsec_` + base64 of 32 random bytes.',
    },
  };
  const envelope = (data: JsonSchema, description: string): JsonSchema => ({
    type: 'object',
    description,
    required: ['success', 'data'],
    properties: { success: { const: true }, data },
  });
  return {
    WebhookInput: webhookInputSchema(),
    Webhook: {
      type: 'object',
      description: 'A webhook endpoint. Never shows its secret.',
      required: Object.keys(properties),
      properties,
    },
    CreatedWebhook: {
      type: 'object',
      description: 'A new webhook endpoint, with its signing secret.',
      required: Object.keys(created),
      properties: created,
    },
    CreatedWebhookEnvelope: envelope(ref('CreatedWebhook'), 'The new webhook, with its secret.'),
    WebhookEnvelope: envelope(ref('Webhook'), 'One webhook, without its secret.'),
    UpdatedWebhookEnvelope: envelope(
      { anyOf: [ref('CreatedWebhook'), ref('Webhook')] },
      'The webhook as changed: with its new secret after rotate_secret, without a secret otherwise.',
    ),
    WebhookListEnvelope: envelope({ type: 'array', items: ref('Webhook') }, 'Webhooks, ascending by id.'),
    WebhookAttempt: {
      type: 'object',
      description: 'One delivery attempt to a webhook.',
      required: Object.keys(attempt),
      properties: attempt,
    },
    WebhookTestResult: {
      type: 'object',
      description: 'How the one attempt of a test delivery went.',
      required: Object.keys(testResult),
      properties: testResult,
    },
    WebhookTestResultEnvelope: envelope(ref('WebhookTestResult'), 'The outcome of the test delivery.'),
    WebhookAttemptListEnvelope: envelope(
      { type: 'array', items: ref('WebhookAttempt') },
      "A webhook's delivery attempts, newest first.",
    ),
  };
}
