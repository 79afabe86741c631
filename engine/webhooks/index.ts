export { createWebhookDispatcher, type WebhookDispatcher, type WebhookDispatcherOptions } from './dispatcher.ts';
export { nextAttemptAt, RETRY_DELAYS_MS } from './backoff.ts';
export { signWebhook } from './signature.ts';
export { webhookRequest, type WebhookRequest } from './payload.ts';
