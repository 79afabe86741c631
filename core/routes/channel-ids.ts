import { foreignChannelDetails } from '../validation/notify-fields.ts';
import { failIfAny } from '../validation/parse-fields.ts';
import type { RouteContext } from './route-context.ts';

/**
 * Refuses a device's or a blacklist monitor's `channel_ids` that name ids which are not channels of
 * the caller's user (docs/notifications.md, "Which channels"): 400 `invalid_value`, one detail per
 * id. Ids the record held already are not looked up again: deleting a channel takes it out of
 * every list, so those still name the user's channels.
 */
export async function refuseForeignChannels(
  call: RouteContext,
  record: { channel_ids?: number[] | null },
  before?: { channel_ids: number[] | null },
): Promise<void> {
  const held = new Set(before?.channel_ids ?? []);
  const asked = (record.channel_ids ?? []).filter((id) => !held.has(id));
  if (asked.length === 0) return;
  const owned = new Set(await call.store.ownedChannelIds(call.key.user_id, asked));
  failIfAny(foreignChannelDetails(asked.filter((id) => !owned.has(id))));
}
