import { foreignChannelDetails } from '../validation/notify-fields.ts';
import { failIfAny } from '../validation/parse-fields.ts';
import type { RouteContext } from './route-context.ts';

/**
 * Refuses a device's, a blacklist monitor's or a heartbeat's `channel_ids` that name ids which are
 * not channels of the caller's user (docs/notifications.md, "Which channels"): 400
 * `invalid_value`, one detail per id. Every id the body gives is looked up, those the record held
 * already too (the record a change was judged against may be a guess of RecentRecords, older than
 * a delete that took an id out); a change that leaves `channel_ids` out keeps the record's, which
 * name the user's channels.
 */
export async function refuseForeignChannels(
  call: RouteContext,
  record: { channel_ids?: number[] | null },
  body: Record<string, unknown>,
): Promise<void> {
  const asked = Object.hasOwn(body, 'channel_ids') ? (record.channel_ids ?? []) : [];
  if (asked.length === 0) return;
  const owned = new Set(await call.store.ownedChannelIds(call.key.user_id, asked));
  failIfAny(foreignChannelDetails(asked.filter((id) => !owned.has(id))));
}
