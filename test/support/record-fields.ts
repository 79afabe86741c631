/**
 * The fields of a device and of a blacklist monitor as the API answers them, in the order it
 * answers them (docs/contract.md §6.1, §6.2; `name` and `channel_ids` last, docs/notifications.md,
 * "Which channels"); an event's data carries the same.
 */

/** The fields a device's create body sets, in the order the record shows them. */
export const DEVICE_BODY_FIELDS = [
  'target_type',
  'target_value',
  'service_type',
  'scheme',
  'port',
  'host_header',
  'proxy_enabled',
  'origin_host',
  'origin_scheme',
  'origin_port',
  'check_public_http',
  'check_public_https',
  'check_public_tls',
  'check_origin_http',
  'check_origin_tls',
  'expect_status',
  'location',
  'is_enabled',
] as const;

export const DEVICE_FIELDS = [
  'id',
  ...DEVICE_BODY_FIELDS,
  'created_at',
  'check_interval_s',
  'check_locations',
  'quorum',
  'quorum_state',
  'locations',
  'status',
  'status_since',
  'last_checked_at',
  'last_results',
  'name',
  'channel_ids',
] as const;

export const MONITOR_FIELDS = [
  'id',
  'target_type',
  'target_value',
  'is_enabled',
  'last_status',
  'last_checked_at',
  'listed_on',
  'created_at',
  'check_interval_s',
  'failed_zones',
  'zones',
  'count_policy_listings',
  'listings',
  'rdns',
  'name',
  'channel_ids',
] as const;
