/** Status pages and their notices: what the public sees of a user's records (docs/status-pages.md). */
import type { Timestamp } from './common.ts';

/**
 * One line of a status page: a record of the page's user, named for the public. Exactly one of
 * the ids is present. `name` is stored as the page shows it: given, or the record's own name when
 * it had one at the time.
 */
export type StatusPageComponent = {
  name: string;
  /** Components with the same group are shown together under it; null: no group. */
  group: string | null;
} & (
  | { device_id: number; blacklist_monitor_id?: never; heartbeat_id?: never }
  | { blacklist_monitor_id: number; device_id?: never; heartbeat_id?: never }
  | { heartbeat_id: number; device_id?: never; blacklist_monitor_id?: never }
);

/** A status page as a create or an update sets it. */
export interface StatusPageSettings {
  /** `[a-z0-9-]{3,64}`, unique across the service: the page is served at `/status/<slug>`. */
  slug: string;
  title: string;
  /** Plain text (line feeds kept), at most 1,000 characters; null: none. */
  description: string | null;
  components: StatusPageComponent[];
  /** How many days of bars each component shows: 7 to 365. */
  history_days: number;
  /** The IANA zone whose days the bars are. */
  time_zone: string;
  show_response_times: boolean;
  /** Whether targets (names, addresses, ports) are shown; false: never. */
  show_targets: boolean;
  /** A custom domain the page is served at (its `Host`); unique across the service; null: none. */
  hostname: string | null;
  /** False: every public route answers the page as if it did not exist. */
  is_public: boolean;
}

export interface StatusPage extends StatusPageSettings {
  id: number;
  created_at: Timestamp;
  /** When the page's settings last changed (its creation, then each update that changed something). */
  updated_at: Timestamp;
}

export type NewStatusPage = Omit<StatusPage, 'id'>;

/** A public page as the public routes read it: with its owner, whose records it shows. */
export interface OwnedStatusPage extends StatusPage {
  user_id: number;
}

export const NOTICE_IMPACTS = ['none', 'minor', 'major', 'critical'] as const;
export type NoticeImpact = (typeof NOTICE_IMPACTS)[number];
export const NOTICE_STATUSES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
export type NoticeStatus = (typeof NOTICE_STATUSES)[number];

/** One update of a notice: its status from then on, what the owner wrote, and when. */
export interface NoticeUpdate {
  status: NoticeStatus;
  /** Plain text (line feeds kept), at most 5,000 characters. */
  message: string;
  at: Timestamp;
}

/**
 * What the owner writes on a status page while something happens (Atlassian Statuspage's
 * incidents): a title, an impact, and its updates, oldest first; the last one's status is the
 * notice's.
 */
export interface Notice {
  id: number;
  status_page_id: number;
  title: string;
  impact: NoticeImpact;
  status: NoticeStatus;
  /** The page's components it concerns, by their index in `components`; []: the whole page. */
  component_indexes: number[];
  updates: NoticeUpdate[];
  created_at: Timestamp;
  /** The time of the last change: an update, a new title or impact. */
  updated_at: Timestamp;
  /** When its status became `resolved`; null while it is not. */
  resolved_at: Timestamp | null;
}

export type NewNotice = Omit<Notice, 'id'>;
