import type { ChannelSender } from '../channel-sender.ts';
import type { ApiRequest, ParsedUrl } from '../http/api-request.ts';
import type { DnsblZoneLists } from '../dnsbl/zones.ts';
import type { ClosedDayCache } from '../reports/closed-day-cache.ts';
import type { ApiKey } from '../records/index.ts';
import type { Store } from '../store/store.ts';
import type { WebhookSender } from '../webhook-sender.ts';
import type { ListCache } from './list-cache.ts';
import type { RecentRecords } from './recent-records.ts';

/** Everything a route handler may use: the request, its authenticated key and the API's parts. */
export interface RouteContext {
  readonly request: ApiRequest;
  readonly url: ParsedUrl;
  readonly key: ApiKey;
  /** The clock's reading when the request arrived, ms since the epoch. */
  readonly now: number;
  /** `performance.now()` when the request arrived: what the store's change marker is read against. */
  readonly arrivedAt: number;
  readonly store: Store;
  readonly bodyLimit: number;
  /** Records a streamed list reads from the store per query (MonitoringApiOptions.listBatchSize). */
  readonly listBatchSize: number;
  readonly allowPrivateTargets: boolean;
  /** The DNSBL zones the operator configured (MonitoringApiOptions.dnsblZones, dnsblDomainZones). */
  readonly dnsblZones: DnsblZoneLists;
  readonly listCache: ListCache;
  /** The closed UTC days of response-time series, kept per API instance (utc-day-series.ts). */
  readonly closedDays: ClosedDayCache;
  readonly webhookSender: WebhookSender | undefined;
  readonly channelSender: ChannelSender | undefined;
  /** The records last answered, a PATCH's first guess at its record (recent-records.ts). */
  readonly recentRecords: RecentRecords;
  /** Where clients reach the public routes (MonitoringApiOptions.publicUrl), without a trailing slash. */
  readonly publicUrl: string | undefined;
}
