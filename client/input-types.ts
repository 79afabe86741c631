/**
 * What the client sends: each resource's create body and a change's. Apart from types.ts so that
 * the calls' types there can name them; both are exported by the client's entry.
 */
import type {
  ChannelType,
  EventType,
  MaintenanceRepeat,
  NoticeImpact,
  NoticeStatus,
  PagerDutySeverity,
  Scheme,
  ServiceType,
  TargetType,
} from '../core/index.ts';

/** An int/bool field: the API accepts exactly these (docs/contract.md §4) and answers booleans. */
export type Flag = boolean | 0 | 1;

/**
 * A device to create. Only target_type and target_value are required; null means the same as
 * leaving a field out. Web-only fields (scheme, host_header, proxy_enabled, origin_*,
 * check_public_http(s), check_origin_*, expect_status) are refused on other services unless
 * null or false.
 */
export interface DeviceInput {
  target_type: TargetType;
  /** A public domain name or IP address, at most 253 characters. */
  target_value: string;
  /** Default web. */
  service_type?: ServiceType | null;
  /** Default https for web. */
  scheme?: Scheme | null;
  /** 1-65535; default by service; required for tcp. */
  port?: number | null;
  host_header?: string | null;
  proxy_enabled?: Flag | null;
  /** Required when proxy_enabled or an origin check is on. */
  origin_host?: string | null;
  origin_scheme?: Scheme | null;
  origin_port?: number | null;
  check_public_http?: Flag | null;
  check_public_https?: Flag | null;
  check_public_tls?: Flag | null;
  check_origin_http?: Flag | null;
  check_origin_tls?: Flag | null;
  /** 100-599; default 200 for web. */
  expect_status?: number | null;
  /** Free text, at most 255 characters. */
  location?: string | null;
  /** Default true. */
  is_enabled?: Flag | null;
  /** Seconds between checks, 30-86400; default 60. */
  check_interval_s?: number | null;
  /** 1-16 distinct location names (`[a-z0-9-]{1,32}`); default null: any one location. */
  check_locations?: string[] | null;
  /** 1 to the number of check_locations; default floor(n / 2) + 1; only with check_locations. */
  quorum?: number | null;
  /** 1-100 characters, used in notifications; default null (its target names it). */
  name?: string | null;
  /** null (the default): every channel of yours with is_default; []: none; else these ids of your channels. */
  channel_ids?: number[] | null;
}

export interface BlacklistMonitorInput {
  target_type: TargetType;
  target_value: string;
  /** Default true. */
  is_enabled?: Flag | null;
  /** Seconds between checks, 300-86400; default 3600. */
  check_interval_s?: number | null;
  /** Some of the installation's zones for the target's type; default null, every one of them. */
  zones?: string[] | null;
  /** Whether a policy listing (Spamhaus PBL) makes the monitor `listed`; default false. */
  count_policy_listings?: Flag | null;
  /** 1-100 characters, used in notifications; default null (its target names it). */
  name?: string | null;
  /** null (the default): every channel of yours with is_default; []: none; else these ids of your channels. */
  channel_ids?: number[] | null;
}

export interface WebhookInput {
  /** An http(s) URL on a public host, at most 2048 characters, without credentials or fragment. */
  url: string;
  /** Non-empty and distinct. Default all event types. */
  events?: EventType[] | null;
  /** Default true. */
  is_enabled?: Flag | null;
}

/**
 * A channel's config as a create gives it, by type (docs/notifications.md): a Telegram `chat_id`
 * may be a number, PagerDuty's `severity` and ntfy's `token` may be left out.
 */
export interface ChannelConfigInputs {
  email: { to: string[] };
  slack: { webhook_url: string };
  discord: { webhook_url: string };
  teams: { webhook_url: string };
  telegram: { bot_token: string; chat_id: string | number };
  pagerduty: { routing_key: string; severity?: PagerDutySeverity | null };
  ntfy: { server_url: string; topic: string; token?: string | null };
}

/** The fields of a channel to create besides its type and config. */
interface ChannelSettings {
  /** 1-100 characters. */
  name: string;
  /**
   * Non-empty and distinct; default device.down, device.up, device.tls_expiring, blacklist.listed,
   * blacklist.delisted, channel.disabled.
   */
  events?: EventType[] | null;
  /** Default true: serves every record of yours whose channel_ids is null. */
  is_default?: Flag | null;
  /** 300-604800 seconds, or null (the default): no reminders. */
  remind_every_s?: number | null;
  /** 60-86400 seconds, or null (the default): told at once. */
  escalate_after_s?: number | null;
  /** Default true. */
  send_recovery?: Flag | null;
  /** Default true. */
  is_enabled?: Flag | null;
}

/** A channel to create: its type, that type's config, and its settings. */
export type ChannelInput = {
  [T in ChannelType]: ChannelSettings & { type: T; config: ChannelConfigInputs[T] };
}[ChannelType];

/**
 * Changes to a channel (`update`): any of its create fields. A config of the channel's own type is
 * merged into the stored one (a field left out keeps its value, its secrets too); a new type needs
 * its config whole.
 */
export type ChannelChanges = Changes<ChannelSettings> & {
  type?: ChannelType;
  config?: {
    [T in ChannelType]: { [K in keyof ChannelConfigInputs[T]]?: ChannelConfigInputs[T][K] | null };
  }[ChannelType];
};

/**
 * A maintenance window to create: one-off (`starts_at`, `ends_at`, RFC 3339, at most 31 days
 * apart) or weekly (`repeat`), for chosen records or all of a kind.
 */
export interface MaintenanceWindowInput {
  /** 1-200 characters. */
  name: string;
  starts_at?: string | null;
  ends_at?: string | null;
  repeat?: MaintenanceRepeat | null;
  device_ids?: number[] | null;
  all_devices?: Flag | null;
  blacklist_monitor_ids?: number[] | null;
  all_blacklist_monitors?: Flag | null;
  heartbeat_ids?: number[] | null;
  all_heartbeats?: Flag | null;
}

/** A component of a status page to create: its record (exactly one id), and its name unless the record lends one. */
export type StatusPageComponentInput = { name?: string | null; group?: string | null } & (
  | { device_id: number; blacklist_monitor_id?: never; heartbeat_id?: never }
  | { blacklist_monitor_id: number; device_id?: never; heartbeat_id?: never }
  | { heartbeat_id: number; device_id?: never; blacklist_monitor_id?: never }
);

/** A status page to create (docs/status-pages.md, "Managing pages"). */
export interface StatusPageInput {
  /** `[a-z0-9-]{3,64}`, unique across the service: served at `/status/<slug>`. */
  slug: string;
  /** 1-100 characters. */
  title: string;
  description?: string | null;
  /** 1-100 components, shown in this order. */
  components: StatusPageComponentInput[];
  history_days?: number | null;
  time_zone?: string | null;
  show_response_times?: Flag | null;
  show_targets?: Flag | null;
  hostname?: string | null;
  is_public?: Flag | null;
}

/** A notice to write on a status page: its first update is `status` with `message`. */
export interface NoticeInput {
  status_page_id: number;
  title: string;
  impact: NoticeImpact;
  status: NoticeStatus;
  message: string;
  component_indexes?: number[] | null;
}

/** Changes to a notice: `message` appends an update (with `status`, else the current one). */
export interface NoticeChanges {
  title?: string;
  impact?: NoticeImpact;
  status?: NoticeStatus;
  message?: string;
  component_indexes?: number[] | null;
}

/**
 * Changes to a record (`update`): any subset of the create's fields. `null` gives an optional
 * field its default back; a required field cannot be null.
 */
export type Changes<Input> = { [K in keyof Input]?: Input[K] | null };

/** Changes to a webhook: its create fields, and `rotate_secret: true` for a new signing secret. */
export type WebhookChanges = Changes<WebhookInput> & { rotate_secret?: Flag | null };
