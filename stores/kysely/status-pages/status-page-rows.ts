import type { Selectable } from 'kysely';
import type {
  NewNotice,
  NewStatusPage,
  Notice,
  NoticeUpdate,
  OwnedStatusPage,
  StatusPage,
  StatusPageComponent,
} from '../../../core/index.ts';
import { flagFor, nullableStampText, stampText, toFlag, toId, toNullableStamp, toStamp } from '../rows.ts';
import type { StoreDialect } from '../schema.ts';
import type { StatusPageNoticesTable, StatusPagesTable } from './status-page-tables.ts';

// Status pages and notices between rows and records (docs/status-pages.md).

function parseList<T>(text: string, what: string): T[] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value)) throw new Error(`a status page row holds ${what} that is not a list`);
  return value as T[];
}

export function pageFromRow(row: Selectable<StatusPagesTable>): OwnedStatusPage {
  return {
    id: toId(row.id),
    user_id: toId(row.user_id),
    slug: row.slug,
    title: row.title,
    description: row.description,
    components: parseList<StatusPageComponent>(row.components, 'components'),
    history_days: row.history_days,
    time_zone: row.time_zone,
    show_response_times: toFlag(row.show_response_times),
    show_targets: toFlag(row.show_targets),
    hostname: row.hostname,
    is_public: toFlag(row.is_public),
    created_at: toStamp(row.created_at),
    updated_at: toStamp(row.updated_at),
  };
}

export function withoutOwner({ user_id: _owner, ...page }: OwnedStatusPage): StatusPage {
  return page;
}

/** A page's columns that a create or an update writes, by their field names. */
export function pageColumns(dialect: StoreDialect, page: NewStatusPage | StatusPage) {
  return {
    slug: page.slug,
    title: page.title,
    description: page.description,
    components: JSON.stringify(page.components),
    history_days: page.history_days,
    time_zone: page.time_zone,
    show_response_times: flagFor(dialect, page.show_response_times),
    show_targets: flagFor(dialect, page.show_targets),
    hostname: page.hostname,
    is_public: flagFor(dialect, page.is_public),
    created_at: stampText(page.created_at),
    updated_at: stampText(page.updated_at),
  };
}

export function noticeFromRow(row: Selectable<StatusPageNoticesTable>): Notice {
  return {
    id: toId(row.id),
    status_page_id: toId(row.status_page_id),
    title: row.title,
    impact: row.impact,
    status: row.status,
    component_indexes: parseList<number>(row.component_indexes, 'component indexes'),
    updates: parseList<NoticeUpdate>(row.updates, 'updates'),
    created_at: toStamp(row.created_at),
    updated_at: toStamp(row.updated_at),
    resolved_at: toNullableStamp(row.resolved_at),
  };
}

/** A notice's columns that a create or an update writes, by their field names. */
export function noticeColumns(notice: NewNotice | Notice) {
  return {
    title: notice.title,
    impact: notice.impact,
    status: notice.status,
    component_indexes: JSON.stringify(notice.component_indexes),
    updates: JSON.stringify(notice.updates),
    created_at: stampText(notice.created_at),
    updated_at: stampText(notice.updated_at),
    resolved_at: nullableStampText(notice.resolved_at),
  };
}
