import type { NewNotice, NewStatusPage, Notice, OwnedStatusPage, StatusPage, Timestamp } from '../records/index.ts';
import type { PageRequest, RecordChange, UpdateResult } from '../store/store-calls.ts';
import type {
  ComponentIds,
  ComponentRecords,
  StatusPageAddress,
  StatusPageConflict,
  StatusPageCreateResult,
  StatusPageUpdateResult,
} from '../store/status-page-store.ts';
import { changeNow, deleteOwned, updateOwned, withChangedFields } from './memory-rows.ts';
import type { MemoryTables } from './memory-tables.ts';
import type { ChangeListener } from '../store/record-changes.ts';

interface Row<T> {
  userId: number;
  record: T;
}

/** Rows of `rows` of the user after `req.afterId`, ascending by id, at most `req.limit`. */
function pageOf<T>(rows: Map<number, Row<T>>, accept: (row: Row<T>) => boolean, req: PageRequest): T[] {
  const out: T[] = [];
  // A Map keeps insertion order, which is ascending id order here.
  for (const [id, row] of rows) {
    if (id <= req.afterId || !accept(row)) continue;
    out.push(structuredClone(row.record));
    if (out.length >= req.limit) break;
  }
  return out;
}

/** The memory store's status pages and notices (memory-store.ts; docs/status-pages.md). */
export class MemoryStatusPages {
  readonly #t: MemoryTables;
  readonly #pages = new Map<number, Row<StatusPage>>();
  readonly #notices = new Map<number, Row<Notice>>();
  #nextPage = 1;
  #nextNotice = 1;

  constructor(tables: MemoryTables) {
    this.#t = tables;
  }

  /** The unique field of `page` that another page than `ownId` holds, if any. */
  #conflict(page: NewStatusPage, ownId?: number): StatusPageConflict | undefined {
    for (const [id, { record }] of this.#pages) {
      if (id === ownId) continue;
      if (record.slug === page.slug) return 'slug';
      if (page.hostname !== null && record.hostname === page.hostname) return 'hostname';
    }
    return undefined;
  }

  async createStatusPage(userId: number, page: NewStatusPage): Promise<StatusPageCreateResult> {
    const conflict = this.#conflict(page);
    if (conflict !== undefined) return { conflict };
    const record: StatusPage = { id: this.#nextPage++, ...structuredClone(page) };
    this.#pages.set(record.id, { userId, record });
    this.#t.changes.changed('status_page', record.id);
    return { created: structuredClone(record) };
  }

  async listStatusPages(userId: number, req: PageRequest): Promise<StatusPage[]> {
    return pageOf(this.#pages, (row) => row.userId === userId, req);
  }

  async getStatusPage(userId: number, id: number): Promise<StatusPage | undefined> {
    const row = this.#pages.get(id);
    return row?.userId === userId ? structuredClone(row.record) : undefined;
  }

  async updateStatusPage(
    userId: number,
    id: number,
    change: RecordChange<StatusPage, NewStatusPage>,
  ): Promise<StatusPageUpdateResult> {
    const row = this.#pages.get(id);
    if (!row || row.userId !== userId) return undefined;
    const now = changeNow(row.record, change);
    if (now === 'stale') return { stale: true };
    if (now === 'unchanged') return { updated: structuredClone(row.record) };
    const conflict = this.#conflict(now.to, id);
    if (conflict !== undefined) return { conflict };
    row.record = withChangedFields(row.record, now);
    this.#t.changes.changed('status_page', id);
    return { updated: structuredClone(row.record) };
  }

  async deleteStatusPage(userId: number, id: number): Promise<boolean> {
    const row = this.#pages.get(id);
    if (!row || row.userId !== userId) return false;
    for (const [noticeId, notice] of this.#notices) {
      if (notice.record.status_page_id === id) this.#notices.delete(noticeId);
    }
    this.#pages.delete(id);
    this.#t.changes.changed('status_page', id);
    return true;
  }

  async createNotice(userId: number, notice: NewNotice): Promise<Notice | undefined> {
    if (this.#pages.get(notice.status_page_id)?.userId !== userId) return undefined;
    const record: Notice = { id: this.#nextNotice++, ...structuredClone(notice) };
    this.#notices.set(record.id, { userId, record });
    this.#t.changes.changed('status_page', record.status_page_id);
    return structuredClone(record);
  }

  async listNotices(userId: number, statusPageId: number, req: PageRequest): Promise<Notice[] | undefined> {
    if (this.#pages.get(statusPageId)?.userId !== userId) return undefined;
    return pageOf(this.#notices, (row) => row.record.status_page_id === statusPageId, req);
  }

  async getNotice(userId: number, id: number): Promise<Notice | undefined> {
    const row = this.#notices.get(id);
    return row?.userId === userId ? structuredClone(row.record) : undefined;
  }

  async updateNotice(
    userId: number,
    id: number,
    change: RecordChange<Notice, NewNotice>,
  ): Promise<UpdateResult<Notice>> {
    const pageId = this.#notices.get(id)?.record.status_page_id;
    const result = updateOwned(this.#notices, userId, id, change);
    if (result !== undefined && 'updated' in result) this.#t.changes.changed('status_page', pageId!);
    return result;
  }

  async deleteNotice(userId: number, id: number): Promise<boolean> {
    const pageId = this.#notices.get(id)?.record.status_page_id;
    const deleted = deleteOwned(this.#notices, userId, id);
    if (deleted) this.#t.changes.changed('status_page', pageId!);
    return deleted;
  }

  /** Store.watchChanges: this store's own writes are all there are, told as they are made. */
  watchChanges(listener: ChangeListener): () => void {
    const unwatch = this.#t.changes.watch(listener);
    listener.hearing(true);
    return unwatch;
  }

  async findPublicStatusPage(address: StatusPageAddress): Promise<OwnedStatusPage | undefined> {
    for (const { userId, record } of this.#pages.values()) {
      const matches = 'slug' in address ? record.slug === address.slug : record.hostname === address.hostname;
      if (matches) return record.is_public ? { ...structuredClone(record), user_id: userId } : undefined;
    }
    return undefined;
  }

  async componentRecords(userId: number, ids: ComponentIds): Promise<ComponentRecords> {
    const pick = <T extends { id: number }>(
      rows: Map<number, { userId: number; record: T }>,
      wanted: readonly number[],
    ) =>
      [...new Set(wanted)]
        .sort((a, b) => a - b)
        .flatMap((id) => {
          const row = rows.get(id);
          return row?.userId === userId ? [structuredClone(row.record)] : [];
        });
    return {
      devices: pick(this.#t.devices, ids.device_ids),
      blacklist_monitors: pick(this.#t.monitors, ids.blacklist_monitor_ids),
    };
  }

  async recentNotices(statusPageId: number, since: Timestamp, limit: number): Promise<Notice[]> {
    const from = Date.parse(since);
    return [...this.#notices.values()]
      .map((row) => row.record)
      .filter((n) => n.status_page_id === statusPageId && (n.resolved_at === null || Date.parse(n.updated_at) >= from))
      .sort((a, b) => b.id - a.id)
      .slice(0, limit)
      .map((n) => structuredClone(n));
  }
}
