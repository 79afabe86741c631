import { parseWebhookInput } from '../validation/webhook-input.ts';
import { generateWebhookSecret } from '../webhook-secret.ts';
import { resourceRoutes } from './resource-routes.ts';

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
