import { errors } from '../http/errors.ts';
import { successResponse, type ApiResponse } from '../http/api-response.ts';
import { parseDeleteId } from '../validation/list-query.ts';
import { parseWebhookInput } from '../validation/webhook-input.ts';
import { generateWebhookSecret } from '../webhook-secret.ts';
import { resourceRoutes } from './resource-routes.ts';
import type { RouteContext } from './route-context.ts';

/**
 * GET /webhooks, POST /webhooks/create, DELETE /webhooks/delete (docs/engine.md, "Events and
 * webhooks"). The secret is made here, after validation, so a refused request costs no randomness;
 * the create answer is the store's record with it, lists are the store's records without.
 */
export const webhookRoutes = resourceRoutes({
  parse: parseWebhookInput,
  list: (store, userId, page) => store.listWebhooks(userId, page),
  create: (store, userId, webhook) => store.createWebhook(userId, { ...webhook, secret: generateWebhookSecret() }),
  remove: (store, userId, id) => store.deleteWebhook(userId, id),
  duplicate: 'duplicate_webhook',
  notFound: 'webhook_not_found',
});

/**
 * POST /webhooks/test?id=<id>: a signed `webhook.test` event sent to the webhook at once, and the
 * attempt's outcome as the answer (docs/engine.md, "Webhooks"). The body, if any, is
 * not read. Nothing is stored: the attempt is the answer.
 */
export async function testWebhook(call: RouteContext): Promise<ApiResponse> {
  const id = parseDeleteId(call.url.query);
  const webhook = await call.store.webhookWithSecret(call.key.user_id, id);
  if (webhook === undefined) throw errors.notFound('webhook_not_found');
  if (call.webhookSender === undefined) throw errors.webhookTestUnavailable();
  return successResponse(200, await call.webhookSender(webhook));
}
