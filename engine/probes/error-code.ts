import { ProbeFailure } from '../net/connector.ts';

/** The `code` of an error, when it carries a string one (Node's system and TLS errors do). */
function codeOf(error: unknown): string | null {
  if (typeof error !== 'object' || error === null || !('code' in error)) return null;
  return typeof error.code === 'string' && error.code !== '' ? error.code : null;
}

/**
 * The short machine-readable reason a result's `error` keeps: the connector's own code
 * (`timeout`, `forbidden_address`, `dns_error`), else Node's (`ECONNREFUSED`, `ECONNRESET`,
 * `ERR_SSL_...`). The HTTP parser's many `HPE_*` codes all mean the same to an operator: what came
 * back was not HTTP. Anything without a code is `error`: a message is no machine-readable reason.
 */
export function errorCode(error: unknown): string {
  if (error instanceof ProbeFailure) return error.code;
  const code = codeOf(error);
  if (code === null) return 'error';
  if (code.startsWith('HPE_')) return 'bad_http_response';
  return code;
}
