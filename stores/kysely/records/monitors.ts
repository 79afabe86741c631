import type { Selectable } from 'kysely';
import type {
  BlacklistMonitor,
  CreateResult,
  NewBlacklistMonitor,
  PageRequest,
  RecordChange,
  UpdateResult,
} from '../../../core/index.ts';
import { deleteWithResults } from '../checks/check-results.ts';
import { monitorFromRow, monitorToRow } from '../rows.ts';
import type { BlacklistMonitorsTable, DbInteger } from '../schema.ts';
import type { StoreContext } from '../store-context.ts';
import { InsertIfAbsent } from './insert-if-absent.ts';
import { updateMonitored, type MonitoredTable } from './monitored-change.ts';
import { listOwnedRows, readOwnedRow } from './update-record.ts';

type MonitorRow = Selectable<BlacklistMonitorsTable>;

/** Blacklist monitors: create, read, change, list and delete, each change counted as a write. */
export class MonitorRecords {
  readonly #ctx: StoreContext;
  readonly #insert = new InsertIfAbsent('blacklist_monitors');

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  createBlacklistMonitor(userId: number, monitor: NewBlacklistMonitor): Promise<CreateResult<BlacklistMonitor>> {
    const ctx = this.#ctx;
    return ctx.createUnique(
      'blacklist monitor',
      () => monitorToRow(ctx.dialect, userId, monitor),
      (values) => this.#insert.run(ctx.db, values),
      monitorFromRow,
      () => this.#find(userId, monitor),
    );
  }

  /** The monitor of the user that the unique index says `monitor` would duplicate. */
  #find(userId: number, monitor: NewBlacklistMonitor): Promise<{ id: DbInteger } | undefined> {
    return this.#ctx.db
      .selectFrom('blacklist_monitors')
      .select('id')
      .where('user_id', '=', userId)
      .where('target_type', '=', monitor.target_type)
      .where('target_value', '=', monitor.target_value)
      .executeTakeFirst();
  }

  getBlacklistMonitor(userId: number, id: number): Promise<BlacklistMonitor | undefined> {
    return this.#ctx.run(async (db) => {
      const row = await readOwnedRow<MonitorRow>(db, this.#ctx.dialect, 'blacklist_monitors', userId, id);
      return row && monitorFromRow(row);
    });
  }

  updateBlacklistMonitor(
    userId: number,
    id: number,
    change: RecordChange<BlacklistMonitor, NewBlacklistMonitor>,
  ): Promise<UpdateResult<BlacklistMonitor>> {
    const table: MonitoredTable<BlacklistMonitor, NewBlacklistMonitor, MonitorRow> = {
      table: 'blacklist_monitors',
      fromRow: monitorFromRow,
      findDuplicate: (to) => this.#find(userId, to),
    };
    return updateMonitored(this.#ctx, table, userId, id, change);
  }

  listBlacklistMonitors(userId: number, page: PageRequest): Promise<BlacklistMonitor[]> {
    return this.#ctx.run(async (db) =>
      (await listOwnedRows<MonitorRow>(db, this.#ctx.dialect, 'blacklist_monitors', userId, page)).map(monitorFromRow),
    );
  }

  deleteBlacklistMonitor(userId: number, id: number): Promise<boolean> {
    return this.#ctx.write((db) => deleteWithResults(db, 'blacklist_monitor', userId, id));
  }
}
