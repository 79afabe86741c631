/**
 * Which channels hear of an event (docs/notifications.md, "Delivery"): the rule both stores'
 * `fanOutNotifications` apply, so memory, SQLite and PostgreSQL answer alike.
 */
import type { Channel, EventData, MonitoringEvent } from '../records/index.ts';
import { maskedConfig } from './channel-configs.ts';

/** The events that end an incident: a channel with `send_recovery: false` is not told of them. */
const RECOVERIES: readonly string[] = ['device.up', 'blacklist.delisted', 'heartbeat.up'];

/**
 * Of `channels` (every channel of the event's user), the ids of those that get a notification of
 * `event`: those its record names in `channel_ids` (null: the `is_default` ones); for
 * `channel.disabled`, every other channel. Each enabled, subscribed to the type, created at or
 * before the event, and with `send_recovery` for a recovery.
 */
export function channelsServing(event: MonitoringEvent, channels: readonly Channel[]): number[] {
  const at = Date.parse(event.created_at);
  const data = event.data as { id: number; channel_ids?: number[] | null };
  const disabled = event.type === 'channel.disabled';
  const named = disabled ? null : (data.channel_ids ?? null);
  return channels
    .filter((channel) => {
      if (!channel.is_enabled || !channel.events.includes(event.type)) return false;
      if (Date.parse(channel.created_at) > at) return false;
      if (!channel.send_recovery && RECOVERIES.includes(event.type)) return false;
      if (disabled) return channel.id !== data.id;
      return named === null ? channel.is_default : named.includes(channel.id);
    })
    .map((channel) => channel.id)
    .sort((a, b) => a - b);
}

/**
 * The data of the `channel.disabled` event a store writes when it disables `channel`: the channel
 * as answered, its secrets masked (the event reaches webhooks and other channels).
 */
export function disabledEventData(channel: Channel): EventData {
  return {
    ...channel,
    config: maskedConfig(channel.type, channel.config),
    previous_status: 'enabled',
    status: 'disabled',
  };
}
