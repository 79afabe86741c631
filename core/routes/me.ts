import { successResponse, type ApiResponse } from '../http/api-response.ts';
import { refuseQuery } from '../validation/list-query.ts';
import type { Call } from './call.ts';

/** GET /me: the calling key and its user (spec §4.2), plus the key's expiry. */
export async function getMe(call: Call): Promise<ApiResponse> {
  refuseQuery(call.url.query);
  const { key } = call;
  return successResponse(200, {
    user_id: key.user_id,
    key_id: key.id,
    scopes: key.scopes,
    expires_at: key.expires_at,
  });
}
