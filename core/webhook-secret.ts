/** The prefix Standard Webhooks gives secrets, so that one is recognised in a config file or a leak scan. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/**
 * A new signing secret: `whsec_` + base64 of 32 random bytes (256 bits, the HMAC-SHA256 block's
 * worth). Web Crypto, so the core stays runtime-agnostic.
 */
export function generateWebhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return WEBHOOK_SECRET_PREFIX + btoa(binary);
}
