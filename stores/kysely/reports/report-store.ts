import type {
  ClosedSeriesDays,
  Incident,
  IncidentQuery,
  ListingPeriod,
  ReportRange,
  ResponseTimePoint,
  ResponseTimeQuery,
  StatusTimeline,
  StatusTotals,
  Timestamp,
} from '../../../core/index.ts';
import type { StoreContext } from '../store-context.ts';
import { closedSeriesDays, listIncidents, listListingPeriods, listResponseTimes } from './report-reads.ts';
import { deleteReportsBefore, rollUpResults } from './report-upkeep.ts';
import { statusTimelines } from './status-timelines.ts';
import { deviceStatusTotals } from './timeline-reads.ts';

/**
 * Reports: the triggers write the timeline, incidents and listing periods; their reads and their
 * upkeep (rollups, expiry) are here. Rows rolled up or deleted count as a write when there were any.
 */
export class ReportRecords {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  statusTimelines(userId: number, deviceIds: readonly number[], range: ReportRange): Promise<StatusTimeline[]> {
    return this.#ctx.run((db) => statusTimelines(db, this.#ctx.dialect, userId, deviceIds, range));
  }

  deviceStatusTotals(userId: number, deviceId: number, range: ReportRange): Promise<StatusTotals | undefined> {
    return this.#ctx.run((db) => deviceStatusTotals(db, this.#ctx.dialect, userId, deviceId, range));
  }

  listResponseTimes(
    userId: number,
    deviceId: number,
    query: ResponseTimeQuery,
  ): Promise<ResponseTimePoint[] | undefined> {
    return this.#ctx.run((db) => listResponseTimes(db, userId, deviceId, query));
  }

  closedSeriesDays(userId: number, deviceId: number): Promise<ClosedSeriesDays | undefined> {
    return this.#ctx.run((db) => closedSeriesDays(db, this.#ctx.dialect, userId, deviceId));
  }

  listIncidents(userId: number, query: IncidentQuery): Promise<Incident[] | undefined> {
    return this.#ctx.run((db) => listIncidents(db, userId, query));
  }

  listListingPeriods(userId: number, monitorId: number, range: ReportRange): Promise<ListingPeriod[] | undefined> {
    return this.#ctx.run((db) => listListingPeriods(db, userId, monitorId, range));
  }

  rollUpResults(before: Timestamp, maxHours: number): Promise<number> {
    return this.#ctx.changedReports(this.#ctx.run((db) => rollUpResults(db, before, maxHours)));
  }

  deleteReportsBefore(before: Timestamp, limit: number): Promise<number> {
    return this.#ctx.changedReports(this.#ctx.run((db) => deleteReportsBefore(db, this.#ctx.dialect, before, limit)));
  }
}
