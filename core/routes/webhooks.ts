import * as v from 'valibot';
import { errors } from '../http/errors.ts';
import { successResponse, type ApiResponse } from '../http/api-response.ts';
import type { CreatedWebhook, Webhook } from '../records/index.ts';
import type { WebhookChange } from '../store/webhook-store.ts';
import { flag, optional } from '../validation/field-schemas.ts';
import { parseIdAlone } from '../validation/list-query.ts';
import { parsePatch } from '../validation/patch-input.ts';
import { parseWebhookInput, webhookHints, webhookSchema } from '../validation/webhook-input.ts';
import { generateWebhookSecret } from '../webhook-secret.ts';
import { changedFields } from './record-change.ts';
import { resourceRoutes } from './resource-routes.ts';
import type { RouteContext } from './route-context.ts';

const FIELDS = Object.keys(webhookSchema.entries);

/** What a PATCH of a webhook may give besides the create's fields. */
const EXTRA = v.object({ rotate_secret: optional(flag()) }, 'invalid_type');
const HINTS = { ...webhookHints, rotate_secret: 'true, false, 0 or 1' };

/** The record without its secret, whatever the store handed back. */
function withoutSecret(record: Webhook | CreatedWebhook): Webhook {
  const { secret: _secret, ...rest } = record as CreatedWebhook;
  return rest;
}

/**
 * GET /webhooks, POST /webhooks/create, GET /webhooks/get, PATCH /webhooks/update,
 * DELETE /webhooks/delete (docs/engine.md, "Events and webhooks"). The secret is made here, after
 * validation, so a refused request costs no randomness; the create answer (and the answer to a
 * PATCH with `rotate_secret: true`) is the only one that shows it.
 */
export const webhookRoutes = resourceRoutes<Webhook, WebhookChange>({
  parse: parseWebhookInput,
  list: (store, userId, page) => store.listWebhooks(userId, page),
  create: (store, userId, webhook) => store.createWebhook(userId, { ...webhook, secret: generateWebhookSecret() }),
  remove: (store, userId, id) => store.deleteWebhook(userId, id),
  get: (store, userId, id) => store.getWebhook(userId, id),
  prepare(from, body, options, at) {
    const to: WebhookChange = parsePatch<Webhook, WebhookChange>(
      {
        schema: webhookSchema,
        hints: HINTS,
        parse: (input) => parseWebhookInput(input, options, from.created_at),
        extra: EXTRA,
        hidden: ['secret'],
      },
      from,
      body,
    );
    // Judged already (parsePatch): the flag as a boolean, or absent.
    const rotate = v.parse(EXTRA, body).rotate_secret ?? false;
    if (changedFields(from, to, FIELDS).length === 0 && !rotate) return { change: null, answer: withoutSecret };
    if (rotate) to.secret = generateWebhookSecret();
    return {
      change: { to, fields: FIELDS, effect: 'none', at, events: [] },
      answer: rotate ? (record) => record : withoutSecret,
    };
  },
  update: (store, userId, id, change) => store.updateWebhook(userId, id, change),
  duplicate: 'duplicate_webhook',
  kind: 'webhook',
  notFound: 'webhook_not_found',
});

/**
 * POST /webhooks/test?id=<id>: a signed `webhook.test` event sent to the webhook at once, and the
 * attempt's outcome as the answer (docs/webhooks.md, "Webhooks"). The body, if any, is
 * not read. Nothing is stored: the attempt is the answer.
 */
export async function testWebhook(call: RouteContext): Promise<ApiResponse> {
  const id = parseIdAlone(call.url.query);
  const webhook = await call.store.webhookWithSecret(call.key.user_id, id);
  if (webhook === undefined) throw errors.notFound('webhook_not_found');
  if (call.webhookSender === undefined) throw errors.webhookTestUnavailable();
  return successResponse(200, await call.webhookSender(webhook));
}
