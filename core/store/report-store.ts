import type { Timestamp } from '../records/index.ts';
import type {
  ClosedSeriesDays,
  Incident,
  IncidentAcknowledgement,
  IncidentQuery,
  ListingPeriod,
  ReportRange,
  ResponseTimePoint,
  ResponseTimeQuery,
  StatusTimeline,
  StatusTotals,
} from '../reports/report-records.ts';

/**
 * What the report routes read (docs/engine.md, "Reports"). Each answers undefined when the record
 * does not exist or is another user's. The status timeline, incidents and listing periods are
 * written in the transaction that changes the record's status or listings, whichever path
 * changes it (a check, a pause, a maintenance window, an update); `Store` extends this.
 */
export interface ReportStore {
  /**
   * The status timelines of the user's devices among `deviceIds` over `range`, one per device
   * found, ascending by id (a status page's days, docs/status-pages.md): the rows availability is
   * computed from, read at once for every component of a page.
   */
  statusTimelines(userId: number, deviceIds: readonly number[], range: ReportRange): Promise<StatusTimeline[]>;
  /** How the device spent `range`, from its status timeline. */
  deviceStatusTotals(userId: number, deviceId: number, range: ReportRange): Promise<StatusTotals | undefined>;
  /**
   * The device's response times in `query`'s buckets, each bucket that overlaps the range, by
   * bucket start, probe and location, counting the checks inside the range (an hour the range cuts
   * whole once the retention left only its rollup; docs/engine.md, "Reports"); the bucket still
   * running counts what is recorded so far.
   */
  listResponseTimes(
    userId: number,
    deviceId: number,
    query: ResponseTimeQuery,
  ): Promise<ResponseTimePoint[] | undefined>;
  /**
   * Where the device's daily rows stand, read in one go: the days before `closedUntil` are final,
   * and none before `firstDay` has rows. Optional: with it, the API keeps the points of closed
   * UTC days in memory (core/reports/closed-day-cache.ts) and reads only the other days.
   */
  closedSeriesDays?(userId: number, deviceId: number): Promise<ClosedSeriesDays | undefined>;
  /**
   * The user's incidents overlapping the range (an open one overlaps every range after its
   * start), newest first (by id); undefined when `query.device_id` is not a device of the user's.
   */
  listIncidents(userId: number, query: IncidentQuery): Promise<Incident[] | undefined>;
  /**
   * Acknowledges the user's incident `incidentId` as API key `keyId` at `at`: sets
   * `acknowledged_at` and `acknowledged_by` only when it has none (a conditional update, so the
   * first of concurrent acknowledgements wins), and, in the same transaction, while it is open,
   * queues an `acknowledgement` notification for each PagerDuty channel that was delivered its
   * trigger (docs/notifications.md, "Reminders, escalation and acknowledgement"). Undefined when
   * the incident does not exist or is another user's.
   */
  acknowledgeIncident(
    userId: number,
    incidentId: number,
    keyId: number,
    at: Timestamp,
  ): Promise<IncidentAcknowledgement | undefined>;
  /** The monitor's listing periods overlapping the range, by `listed_at`, then zone. */
  listListingPeriods(userId: number, monitorId: number, range: ReportRange): Promise<ListingPeriod[] | undefined>;
}

/**
 * What the engine's report upkeep needs of a store. Optional in `MonitoringStore`: an engine on a
 * store without it keeps raw results only.
 */
export interface ReportUpkeep {
  /**
   * Rolls raw results up into hourly rows (and finished UTC days into daily rows), for every
   * whole hour that ended at or before `before` and is not rolled yet, oldest first, at most
   * `maxHours` of them; says how many hours it rolled. Each hour is rolled once, however many
   * workers ask at the same time.
   */
  rollUpResults(before: Timestamp, maxHours: number): Promise<number>;
  /**
   * Deletes at most `limit` report rows (rollups, closed incidents, listing periods, and timeline
   * changes no longer needed to know the status at `before`) older than `before`; says how many.
   */
  deleteReportsBefore(before: Timestamp, limit: number): Promise<number>;
}
