import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';

/** Contexts kept, one per list of extra certificates; an engine has one list, tests a few. */
const MAX_CONTEXTS = 16;
const contexts = new Map<string, SecureContext>();

/**
 * A TLS context that trusts Node's root certificates and the `extra` ones (PEM) besides, for
 * connections that must also accept an operator's own authority (`trustedCa`).
 *
 * Passing `ca` to `tls.connect` builds such a context for every connection, which parses every
 * root certificate again: about 30 ms of CPU a connection on a 2026 server, more than the rest of
 * a probe. One context per list, made on first use, serves every connection after it; what each
 * connection checks (the name, whether the chain was trusted) is still its own.
 */
export function contextTrusting(extra: readonly string[]): SecureContext {
  const key = extra.join('\n');
  let context = contexts.get(key);
  if (context === undefined) {
    if (contexts.size >= MAX_CONTEXTS) contexts.clear();
    context = createSecureContext({ ca: [...rootCertificates, ...extra] });
    contexts.set(key, context);
  }
  return context;
}
