/**
 * What the package's own adapters, stores, engine and command need of the core beyond its public
 * entry (core/index.ts). Not in package.json "exports": nothing here is a promise to users, and
 * the layout lint lets only adapters/, stores/, engine/ and cli/ import it.
 */
export * from './index.ts';
export { toWebResponse } from './http/api-response.ts';
export { ApiError, type ApiErrorOptions } from './http/api-error.ts';
export { errors } from './http/errors.ts';
export { WEBHOOK_SECRET_PREFIX } from './webhook-secret.ts';
export { toTimestamp } from './clock.ts';
export { occurrenceAt } from './maintenance/window-times.ts';
export { channelsServing, disabledEventData } from './channels/serving.ts';
export {
  CLOSER_OF,
  closesIncident,
  nextReminder,
  OPENER_OF,
  opensIncident,
  recoveryFollowsEscalation,
  recoveryNeedsEscalation,
  scheduleFor,
  type QueuedEscalation,
  type ScheduledNotification,
} from './channels/incident-schedule.ts';
export { generateToken, hashToken, TOKEN_PREFIX } from './auth/token.ts';
export { RepeatedErrorLog, type RepeatedError, type RepeatedErrorLogOptions } from './repeated-error-log.ts';
export { ROUTES } from './routes/router.ts';
export { normalizePublicUrl } from './options.ts';
export { sameValue } from './store/store-calls.ts';
export { ChangeFeed } from './store/record-changes.ts';
export { PINGS_KEPT } from './store/heartbeat-store.ts';
export {
  HEARTBEAT_TIMELINE_STATES,
  firstTimelineChange,
  lateCheckAt,
  newHeartbeatState,
} from './heartbeats/heartbeat-state.ts';
export {
  applyPing,
  lateWrite,
  maintenanceEnded,
  maintenanceStarted,
  settingsWrite,
} from './heartbeats/heartbeat-moves.ts';
export {
  DAY_MS,
  HOUR_MS,
  addRollup,
  compareResponseTimePoints,
  dayStart,
  hourStart,
  mergeRollups,
  responseTimePoint,
  rollUpResults,
  rollupP95,
  type RollupInput,
} from './reports/rollups.ts';
export { responseSeries, seriesReads, type StoredRollup } from './reports/response-series.ts';
// The target policy, for the engine's guarded connector: probes are held to what the API accepts.
export { isForbiddenName, isPublicIp } from './targets/target-policy.ts';
export { canonicalIp } from './net/ip-address.ts';
export {
  DEFAULT_LOCATION,
  HEARTBEAT_INTERVAL_MS,
  LISTED_LOCATION_MS,
  LIVE_HEARTBEAT_MS,
  LOCATION_NAME,
} from './locations.ts';
export {
  DEFAULT_DNSBL_DOMAIN_ZONES,
  DEFAULT_DNSBL_ZONES,
  normalizeZone,
  normalizeZones,
  type DnsblZoneLists,
} from './dnsbl/zones.ts';
export {
  MAX_LISTED_ITEMS,
  NOTIFICATION_REASONS,
  type EventItem,
  type Notification,
  type NotificationIncident,
  type NotificationItem,
  type NotificationReason,
  type TestItem,
} from './channels/notification.ts';
