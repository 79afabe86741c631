import { jsonResponse, successBody, type ApiResponse } from '../http/api-response.ts';
import type { ApiKey, Me } from '../records/index.ts';
import { refuseQuery } from '../validation/list-query.ts';
import type { RouteContext } from './route-context.ts';

/**
 * Answer bodies by key. Keys are immutable records, replaced (not changed) when read again, so a
 * body made once serves every /me of that key object; clients call /me as a health check, often.
 */
const bodies = new WeakMap<ApiKey, string>();

function bodyFor(key: ApiKey): string {
  let body = bodies.get(key);
  if (body === undefined) {
    const me: Me = { user_id: key.user_id, key_id: key.id, scopes: key.scopes, expires_at: key.expires_at };
    body = successBody(me);
    bodies.set(key, body);
  }
  return body;
}

/** GET /me: the calling key and its user (docs/contract.md §6.5), plus the key's expiry. */
export async function getMe(call: RouteContext): Promise<ApiResponse> {
  refuseQuery(call.url.query);
  return jsonResponse(200, bodyFor(call.key));
}
