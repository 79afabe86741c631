/**
 * The event types (docs/webhooks.md, "Events"), apart from the events themselves so that the
 * records whose subscriptions name them (webhooks, channels) and the events whose data carries
 * records can each import them.
 */
export const EVENT_TYPES = [
  'device.down',
  'device.up',
  'device.tls_expiring',
  'device.location_failing',
  'blacklist.listed',
  'blacklist.delisted',
  'device.paused',
  'device.resumed',
  'blacklist_monitor.paused',
  'blacklist_monitor.resumed',
  'device.maintenance_started',
  'device.maintenance_ended',
  'heartbeat.down',
  'heartbeat.up',
  'channel.disabled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
