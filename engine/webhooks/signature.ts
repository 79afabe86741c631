import { createHmac } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from '../../core/internal.ts';

/** The key bytes of a `whsec_...` secret: the base64 after the prefix, decoded. */
export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}

/**
 * The `webhook-signature` header of Standard Webhooks: `v1,` + base64 of the HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the secret's bytes.
 */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}
