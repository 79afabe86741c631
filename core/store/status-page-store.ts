import type {
  BlacklistMonitor,
  Device,
  NewNotice,
  NewStatusPage,
  Notice,
  OwnedStatusPage,
  StatusPage,
  Timestamp,
} from '../records/index.ts';
import type { PageRequest, RecordChange, UpdateResult } from './store-calls.ts';

/** Which unique field of a status page another page holds already. */
export type StatusPageConflict = 'slug' | 'hostname';

/** A create's answer: the page, or the unique field another page (any user's) holds. */
export type StatusPageCreateResult = { created: StatusPage } | { conflict: StatusPageConflict };

/** An update's answer: as `UpdateResult`, or the unique field another page holds (nothing changed). */
export type StatusPageUpdateResult = UpdateResult<StatusPage> | { conflict: StatusPageConflict };

/** Where a public request names its page: the slug of `/status/<slug>`, or its `Host`. */
export type StatusPageAddress = { slug: string } | { hostname: string };

/**
 * What status pages need of a store (docs/status-pages.md): the pages and their notices as
 * resources of their user, and for the public routes a page by its slug or hostname with what
 * it shows. `Store` extends it. Slugs and hostnames are unique across all users, decided by the
 * store's own unique indexes, so two concurrent creates of one slug make one page.
 */
export interface StatusPageStore {
  createStatusPage(userId: number, page: NewStatusPage): Promise<StatusPageCreateResult>;
  /** Ascending by id. */
  listStatusPages(userId: number, page: PageRequest): Promise<StatusPage[]>;
  getStatusPage(userId: number, id: number): Promise<StatusPage | undefined>;
  /** Compare-and-set on `change.fields`, as `updateDevice`. */
  updateStatusPage(
    userId: number,
    id: number,
    change: RecordChange<StatusPage, NewStatusPage>,
  ): Promise<StatusPageUpdateResult>;
  /** Deletes the page and its notices. */
  deleteStatusPage(userId: number, id: number): Promise<boolean>;

  /** Undefined when `notice.status_page_id` is not a page of the user's. */
  createNotice(userId: number, notice: NewNotice): Promise<Notice | undefined>;
  /** The page's notices ascending by id; undefined when the page is not the user's. */
  listNotices(userId: number, statusPageId: number, page: PageRequest): Promise<Notice[] | undefined>;
  getNotice(userId: number, id: number): Promise<Notice | undefined>;
  /** Compare-and-set on `change.fields`; a change appending an update compares `updates`. */
  updateNotice(userId: number, id: number, change: RecordChange<Notice, NewNotice>): Promise<UpdateResult<Notice>>;
  deleteNotice(userId: number, id: number): Promise<boolean>;

  /** The page at `address` if it is public (`is_public`), with its owner; undefined otherwise. */
  findPublicStatusPage(address: StatusPageAddress): Promise<OwnedStatusPage | undefined>;
  /** The user's devices and blacklist monitors among the ids given, each kind ascending by id. */
  componentRecords(userId: number, ids: ComponentIds): Promise<ComponentRecords>;
  /**
   * The page's notices that a reader may see at `since` and after: every one not resolved, and
   * every one changed at or after `since`; newest first (by id), at most `limit`.
   */
  recentNotices(statusPageId: number, since: Timestamp, limit: number): Promise<Notice[]>;
}

export interface ComponentIds {
  device_ids: readonly number[];
  blacklist_monitor_ids: readonly number[];
}

export interface ComponentRecords {
  devices: Device[];
  blacklist_monitors: BlacklistMonitor[];
}
