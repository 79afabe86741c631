import type { ColumnType } from 'kysely';
import type { NoticeImpact, NoticeStatus } from '../../../core/index.ts';

// The tables of migration 0016 (docs/status-pages.md), as schema.ts's Database names them. The
// column kinds are schema.ts's, written out here so that this file needs nothing from it.

type Id = ColumnType<number | string | bigint, never, never>;
type Ref = ColumnType<number | string | bigint, number, number>;
type Flag = ColumnType<boolean | number, boolean | number, boolean | number>;
type Stamp = ColumnType<Date | string, string, string>;
type NullableStamp = ColumnType<Date | string | null, string | null | undefined, string | null>;

/** A status page; `components` is JSON (core's StatusPageComponent list). */
export interface StatusPagesTable {
  id: Id;
  user_id: Ref;
  slug: string;
  title: string;
  description: string | null;
  components: string;
  history_days: number;
  time_zone: string;
  show_response_times: Flag;
  show_targets: Flag;
  hostname: string | null;
  is_public: Flag;
  created_at: Stamp;
  updated_at: Stamp;
}

/** A page's notice; `component_indexes` and `updates` are JSON lists. */
export interface StatusPageNoticesTable {
  id: Id;
  status_page_id: Ref;
  user_id: Ref;
  title: string;
  impact: NoticeImpact;
  status: NoticeStatus;
  component_indexes: string;
  updates: string;
  created_at: Stamp;
  updated_at: Stamp;
  resolved_at: NullableStamp;
}

/** The status pages' tables, as the Database of schema.ts holds them. */
export interface StatusPageTables {
  status_pages: StatusPagesTable;
  status_page_notices: StatusPageNoticesTable;
}
