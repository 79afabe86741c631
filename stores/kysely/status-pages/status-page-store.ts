import { CompiledQuery } from 'kysely';
import type { Kysely, Selectable } from 'kysely';
import type {
  ComponentIds,
  ComponentRecords,
  NewStatusPage,
  OwnedStatusPage,
  PageRequest,
  RecordChange,
  StatusPage,
  StatusPageAddress,
  StatusPageConflict,
  StatusPageCreateResult,
  StatusPageUpdateResult,
} from '../../../core/index.ts';
import { applyChange } from '../records/apply-change.ts';
import { isUniqueViolation, listOwnedRows, pickColumns, readOwnedRow } from '../records/update-record.ts';
import { deviceFromRow, monitorFromRow } from '../rows.ts';
import type { Database, StoreDialect } from '../schema.ts';
import { sqlOf } from '../drivers/sql-of.ts';
import { pageColumns, pageFromRow, withoutOwner } from './status-page-rows.ts';
import type { StatusPagesTable } from './status-page-tables.ts';

type PageRow = Selectable<StatusPagesTable>;

/** Ids per statement when reading a page's records. */
const ID_BATCH = 500;

/**
 * Status pages on both databases (docs/status-pages.md): slugs and hostnames are unique across
 * all users by the unique indexes of migration 0016, which decide between concurrent creates; the
 * conflict is then named by reading which field another page holds.
 */
export class KyselyStatusPages {
  private readonly db: Kysely<Database>;
  private readonly dialect: StoreDialect;
  constructor(db: Kysely<Database>, dialect: StoreDialect) {
    this.db = db;
    this.dialect = dialect;
  }

  /** Which unique field of `page` another page than `ownId` holds; undefined when none does (any more). */
  async #conflict(page: NewStatusPage, ownId = 0): Promise<StatusPageConflict | undefined> {
    const rows = await this.db
      .selectFrom('status_pages')
      .select(['id', 'slug', 'hostname'])
      .where((eb) =>
        page.hostname === null
          ? eb('slug', '=', page.slug)
          : eb.or([eb('slug', '=', page.slug), eb('hostname', '=', page.hostname)]),
      )
      .where('id', '<>', ownId)
      .execute();
    if (rows.some((row) => row.slug === page.slug)) return 'slug';
    return rows.length > 0 ? 'hostname' : undefined;
  }

  async createStatusPage(userId: number, page: NewStatusPage): Promise<StatusPageCreateResult> {
    for (;;) {
      try {
        const row = await this.db
          .insertInto('status_pages')
          .values({ ...pageColumns(this.dialect, page), user_id: userId })
          .returningAll()
          .executeTakeFirstOrThrow();
        return { created: withoutOwner(pageFromRow(row)) };
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // The page in the way may be deleted before it is found: then the insert is tried again.
        const conflict = await this.#conflict(page);
        if (conflict !== undefined) return { conflict };
      }
    }
  }

  async listStatusPages(userId: number, page: PageRequest): Promise<StatusPage[]> {
    const rows = await listOwnedRows<PageRow>(this.db, this.dialect, 'status_pages', userId, page);
    return rows.map((row) => withoutOwner(pageFromRow(row)));
  }

  async getStatusPage(userId: number, id: number): Promise<StatusPage | undefined> {
    const row = await readOwnedRow<PageRow>(this.db, this.dialect, 'status_pages', userId, id);
    return row && withoutOwner(pageFromRow(row));
  }

  /** A change as for devices (records/apply-change.ts); a unique index's refusal names its field. */
  async updateStatusPage(
    userId: number,
    id: number,
    change: RecordChange<StatusPage, NewStatusPage>,
  ): Promise<StatusPageUpdateResult> {
    const shown = (row: PageRow) => withoutOwner(pageFromRow(row));
    let conflict: StatusPageConflict | undefined;
    const result = await applyChange(
      this.db,
      this.dialect,
      {
        rowChange: (c: RecordChange<StatusPage, NewStatusPage>) => ({
          table: 'status_pages',
          userId,
          id,
          effect: 'none',
          at: c.at,
          events: [],
          set: pickColumns(pageColumns(this.dialect, c.to), c.fields),
          expect: pickColumns(pageColumns(this.dialect, c.from), c.fields),
        }),
        judged: shown,
        answered: shown,
        findDuplicate: async (to: NewStatusPage) => {
          conflict = await this.#conflict(to, id);
          return conflict === undefined ? undefined : { id: 0 };
        },
      },
      change,
    );
    if (result !== undefined && 'duplicateOf' in result) return { conflict: conflict! };
    return result;
  }

  async deleteStatusPage(userId: number, id: number): Promise<boolean> {
    // Its notices go with it (on delete cascade).
    const result = await this.db
      .deleteFrom('status_pages')
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async findPublicStatusPage(address: StatusPageAddress): Promise<OwnedStatusPage | undefined> {
    const [column, value] = 'slug' in address ? ['slug', address.slug] : ['hostname', address.hostname];
    const at = sqlOf(this.dialect).parameter;
    // One text per column and dialect, so that PostgreSQL prepares it once.
    const text = `select * from status_pages where ${column} = ${at(1)}`;
    const row = (await this.db.executeQuery<PageRow>(CompiledQuery.raw(text, [value]))).rows[0];
    if (row === undefined) return undefined;
    const page = pageFromRow(row);
    return page.is_public ? page : undefined;
  }

  async componentRecords(userId: number, ids: ComponentIds): Promise<ComponentRecords> {
    const records: ComponentRecords = { devices: [], blacklist_monitors: [] };
    const deviceIds = [...new Set(ids.device_ids)];
    for (let start = 0; start < deviceIds.length; start += ID_BATCH) {
      const rows = await this.db
        .selectFrom('devices')
        .selectAll()
        .where('user_id', '=', userId)
        .where('id', 'in', deviceIds.slice(start, start + ID_BATCH))
        .orderBy('id')
        .execute();
      records.devices.push(...rows.map(deviceFromRow));
    }
    const monitorIds = [...new Set(ids.blacklist_monitor_ids)];
    for (let start = 0; start < monitorIds.length; start += ID_BATCH) {
      const rows = await this.db
        .selectFrom('blacklist_monitors')
        .selectAll()
        .where('user_id', '=', userId)
        .where('id', 'in', monitorIds.slice(start, start + ID_BATCH))
        .orderBy('id')
        .execute();
      records.blacklist_monitors.push(...rows.map(monitorFromRow));
    }
    records.devices.sort((a, b) => a.id - b.id);
    records.blacklist_monitors.sort((a, b) => a.id - b.id);
    return records;
  }
}
