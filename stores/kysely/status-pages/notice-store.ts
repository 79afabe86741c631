import type { Kysely, Selectable } from 'kysely';
import type { NewNotice, Notice, PageRequest, RecordChange, Timestamp, UpdateResult } from '../../../core/index.ts';
import { applyChange } from '../records/apply-change.ts';
import { pickColumns, readOwnedRow } from '../records/update-record.ts';
import { stampText } from '../rows.ts';
import type { Database, StoreDialect } from '../schema.ts';
import { noticeColumns, noticeFromRow } from './status-page-rows.ts';
import type { StatusPageNoticesTable } from './status-page-tables.ts';

type NoticeRow = Selectable<StatusPageNoticesTable>;

/** A row naming a parent that is gone: PostgreSQL's foreign_key_violation, SQLite's FOREIGN KEY constraint. */
function isForeignKeyViolation(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if ('code' in error && error.code === '23503') return true;
  return error.message.includes('FOREIGN KEY constraint failed');
}

/**
 * The notices of status pages on both databases (docs/status-pages.md, "Notices"). A notice
 * carries its page's owner, so that every read and change is the user's alone; a new update is a
 * compare-and-set on the `updates` column, judged again on the row as it is when another write
 * came first, so that no update is lost.
 */
export class KyselyNotices {
  private readonly db: Kysely<Database>;
  private readonly dialect: StoreDialect;
  constructor(db: Kysely<Database>, dialect: StoreDialect) {
    this.db = db;
    this.dialect = dialect;
  }

  async #ownsPage(userId: number, statusPageId: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('status_pages')
      .select('id')
      .where('id', '=', statusPageId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async createNotice(userId: number, notice: NewNotice): Promise<Notice | undefined> {
    if (!(await this.#ownsPage(userId, notice.status_page_id))) return undefined;
    try {
      const row = await this.db
        .insertInto('status_page_notices')
        .values({ ...noticeColumns(notice), status_page_id: notice.status_page_id, user_id: userId })
        .returningAll()
        .executeTakeFirstOrThrow();
      return noticeFromRow(row);
    } catch (error) {
      // The page was deleted between the look and the insert: as if it had never been the user's.
      if (isForeignKeyViolation(error)) return undefined;
      throw error;
    }
  }

  async listNotices(userId: number, statusPageId: number, page: PageRequest): Promise<Notice[] | undefined> {
    if (!(await this.#ownsPage(userId, statusPageId))) return undefined;
    const rows = await this.db
      .selectFrom('status_page_notices')
      .selectAll()
      .where('status_page_id', '=', statusPageId)
      .where('id', '>', page.afterId)
      .orderBy('id')
      .limit(page.limit)
      .execute();
    return rows.map(noticeFromRow);
  }

  async getNotice(userId: number, id: number): Promise<Notice | undefined> {
    const row = await readOwnedRow<NoticeRow>(this.db, this.dialect, 'status_page_notices', userId, id);
    return row && noticeFromRow(row);
  }

  async updateNotice(
    userId: number,
    id: number,
    change: RecordChange<Notice, NewNotice>,
  ): Promise<UpdateResult<Notice>> {
    return applyChange(
      this.db,
      this.dialect,
      {
        rowChange: (c: RecordChange<Notice, NewNotice>) => ({
          table: 'status_page_notices',
          userId,
          id,
          effect: 'none',
          at: c.at,
          events: [],
          set: pickColumns(noticeColumns(c.to), c.fields),
          expect: pickColumns(noticeColumns(c.from), c.fields),
        }),
        judged: noticeFromRow,
        answered: noticeFromRow,
      },
      change,
    );
  }

  async deleteNotice(userId: number, id: number): Promise<boolean> {
    const result = await this.db
      .deleteFrom('status_page_notices')
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async recentNotices(statusPageId: number, since: Timestamp, limit: number): Promise<Notice[]> {
    const rows = await this.db
      .selectFrom('status_page_notices')
      .selectAll()
      .where('status_page_id', '=', statusPageId)
      .where((eb) => eb.or([eb('resolved_at', 'is', null), eb('updated_at', '>=', stampText(since))]))
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(noticeFromRow);
  }
}
