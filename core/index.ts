/**
 * monitoring-api core: the v1 Monitoring Service API as a runtime-agnostic fetch handler over a
 * `Store`, a `Clock` and a `RateLimiter`. Adapters and stores live outside and import from here.
 */
export { createMonitoringApi, type MonitoringApi } from './create-monitoring-api.ts';
export { DEFAULTS, type MonitoringApiOptions } from './options.ts';
export type { ApiRequest, HeaderReader, RequestContext } from './http/api-request.ts';
export type { ApiResponse, ApiResponseBody } from './http/api-response.ts';
export type { DetailCode, ErrorDetail, HeaderFields } from './http/api-error.ts';
export {
  MissingTableError,
  type ChangeEffect,
  type CheckRequestResult,
  type CreateResult,
  type PageRequest,
  type RecordChange,
  type Store,
  type UpdateResult,
} from './store/store.ts';
export type { ChangedKind, ChangeListener, RecordChanged } from './store/record-changes.ts';
export type {
  BlacklistCheckOutcome,
  ClaimRequest,
  Claimed,
  ClaimedBlacklistMonitor,
  ClaimedDevice,
  ClaimedLocationCheck,
  DeviceCheckOutcome,
  Lease,
  LocationCheckOutcome,
  LocationCheckWrite,
  LocationClaimRequest,
  LocationDecider,
  MonitoredKind,
  MonitoringStore,
  RecordedCheck,
  ResultsPage,
  StoredLocation,
} from './store/monitoring-store.ts';
export type {
  ClaimedDelivery,
  DeliveryClaimRequest,
  DeliveryLease,
  DeliveryOutcome,
  DeliveryState,
  WebhookChange,
  WebhookDeliveryStore,
  WebhookStore,
} from './store/webhook-store.ts';
export type { WebhookEndpoint, WebhookSender, WebhookTestResult } from './webhook-sender.ts';
export type { ChannelStore, NewChannelAttempt } from './store/channel-store.ts';
export type {
  ChannelLease,
  ChannelMessageClaim,
  ChannelMessageOutcome,
  ChannelMessageState,
  ClaimedChannelMessage,
  NotificationStore,
  QueuedNotificationReason,
} from './store/notification-store.ts';
export type { ChannelEndpoint, ChannelSender } from './channel-sender.ts';
export type { ActiveMaintenance, MaintenanceStore, OwnedMaintenanceWindow } from './store/maintenance-store.ts';
export type {
  ClaimedHeartbeat,
  HeartbeatChange,
  HeartbeatLateOutcome,
  HeartbeatStore,
  HeartbeatTimeline,
} from './store/heartbeat-store.ts';
export type {
  HeartbeatState,
  HeartbeatTimelineChange,
  HeartbeatTimelineState,
  HeartbeatWrite,
} from './heartbeats/heartbeat-state.ts';
export { ManualClock, systemClock, type Clock } from './clock.ts';
export type { RateLimitDecision, RateLimitPolicy, RateLimiter } from './store/rate-limiter.ts';
export { MemoryRateLimiter } from './memory/memory-rate-limiter.ts';
export { MemoryStore } from './memory/memory-store.ts';
export { KeyAdmin, KeyAdminError, type CreateApiKeyInput, type CreatedApiKey } from './admin/key-admin.ts';
export type { Logger, RequestLogEntry } from './logger.ts';
export * from './records/index.ts';
export type { ReportStore, ReportUpkeep } from './store/report-store.ts';
export type {
  ComponentIds,
  ComponentRecords,
  StatusPageAddress,
  StatusPageConflict,
  StatusPageCreateResult,
  StatusPageStore,
  StatusPageUpdateResult,
} from './store/status-page-store.ts';
export type {
  AvailabilityReport,
  ClosedSeriesDays,
  Incident,
  IncidentAcknowledgement,
  IncidentCause,
  IncidentQuery,
  LatencyRollup,
  ListingPeriod,
  ReportBucket,
  ReportRange,
  ResponseTimePoint,
  ResponseTimeQuery,
  StatusTimeline,
  StatusTotals,
} from './reports/report-records.ts';
