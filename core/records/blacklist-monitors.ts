/** Blacklist monitors: the targets the engine looks up in DNSBL zones (docs/contract.md §6). */
import type { TargetType, Timestamp } from './common.ts';

export type BlacklistStatus = 'clean' | 'listed' | 'error';

export interface BlacklistMonitor {
  id: number;
  target_type: TargetType;
  target_value: string;
  is_enabled: boolean;
  last_status: BlacklistStatus | null;
  last_checked_at: Timestamp | null;
  /** The blacklist zones that listed the target at the last check, sorted; [] otherwise. */
  listed_on: string[];
  created_at: Timestamp;
  /** Seconds between checks (docs/engine.md, "What the API shows"): 300 to 86400, default 3600. */
  check_interval_s: number;
  /** The zones whose lookup failed at the last check, sorted; [] otherwise. */
  failed_zones: string[];
  /**
   * The zones asked for this target, sorted: a subset of the operator's zones of its kind; null
   * asks every one of them (docs/engine.md, "Blacklist monitors (DNSBL)"). A create field.
   */
  zones: string[] | null;
  /**
   * Whether a policy listing (Spamhaus PBL: an address range its owner says should not send mail
   * directly) makes the monitor `listed`. A create field, default false: such a listing is shown
   * in `listings` and leaves the status `clean`.
   */
  count_policy_listings: boolean;
  /** Every zone that lists the target, by zone name; [] when none does. */
  listings: DnsblListing[];
  /** The reverse DNS (PTR) name of an IP target at the last check that got an answer; null when it has none. */
  rdns: string | null;
  /** A name people know it by, 1 to 100 characters, used in notifications; null for none (its target names it). */
  name: string | null;
  /**
   * The channels told of its events (docs/notifications.md, "Which channels"): null, every channel
   * of its user with `is_default`; [] none; else these ids of the user's channels, ascending.
   */
  channel_ids: number[] | null;
}

/** One zone's listing of a target (docs/engine.md, "Blacklist monitors (DNSBL)"). */
export interface DnsblListing {
  zone: string;
  /** The A records the zone answered, comma-joined (e.g. `127.0.0.2`). */
  answer: string;
  /** What the answer means, from the list's own documentation; null when the code is not known. */
  meaning: string | null;
  /** True when every code of the answer is a policy listing (Spamhaus PBL), which need not mean spam. */
  policy: boolean;
  /** Where to look the listing up and ask for its removal; null when not known. */
  delist_url: string | null;
  /** The first check that saw this zone list the target, counting from its last delisting. */
  since: Timestamp;
}

/** A monitor as validated from a create request; `name` and `channel_ids` may be left out, as for NewDevice. */
export type NewBlacklistMonitor = Omit<BlacklistMonitor, 'id' | 'name' | 'channel_ids'> &
  Partial<Pick<BlacklistMonitor, 'name' | 'channel_ids'>>;
