import { MonitoringApiError } from './errors.ts';
import { nextLink, type Transport } from './transport.ts';
import type {
  AllIncidentsOptions,
  AvailabilityReport,
  Incident,
  IncidentCursor,
  IncidentOptions,
  IncidentPage,
  ListingPeriod,
  RangeOptions,
  ReportsClient,
  RequestOptions,
  ResponseTimeOptions,
  ResponseTimePoint,
} from './types.ts';

const DEFAULT_PAGE_SIZE = 100;

const stamp = (value: string | Date) => (typeof value === 'string' ? value : value.toISOString());

export function withRange(url: URL, options: RangeOptions): URL {
  if (options.from !== undefined) url.searchParams.set('from', stamp(options.from));
  if (options.to !== undefined) url.searchParams.set('to', stamp(options.to));
  return url;
}

/**
 * The cursor an incidents page's next link carries. It must stay on the same origin and path
 * (the key goes with it) and name the same device, and it repeats the range the first page
 * resolved, so a walk over a range left to its default does not move while it runs.
 */
function incidentCursorOf(next: URL, current: URL): IncidentCursor {
  const q = next.searchParams;
  const limit = Number(q.get('limit'));
  const beforeId = Number(q.get('before_id'));
  const from = q.get('from');
  const to = q.get('to');
  const sameRoute = next.origin === current.origin && next.pathname === current.pathname;
  const sameDevice =
    q.get('device_id') === current.searchParams.get('device_id') &&
    q.get('heartbeat_id') === current.searchParams.get('heartbeat_id');
  const valid = Number.isSafeInteger(limit) && limit >= 1 && Number.isSafeInteger(beforeId) && beforeId >= 1;
  if (!sameRoute || !sameDevice || !valid || from === null || to === null) {
    throw new MonitoringApiError({
      status: 200,
      code: 'unexpected_response',
      message: `The next-page link is not a next page of these incidents: ${next.href}`,
    });
  }
  const deviceId = q.get('device_id');
  const heartbeatId = q.get('heartbeat_id');
  return {
    ...(deviceId === null ? {} : { deviceId: Number(deviceId) }),
    ...(heartbeatId === null ? {} : { heartbeatId: Number(heartbeatId) }),
    from,
    to,
    limit,
    beforeId,
  };
}

/** The report routes' client (docs/contract.md §6.12). */
export function reportsClient(transport: Transport, base: URL): ReportsClient {
  async function get<T>(url: URL, options: RangeOptions): Promise<T> {
    return (await transport.send<T>('GET', url, undefined, options)).data;
  }

  async function incidents(options: IncidentOptions | (IncidentCursor & RequestOptions) = {}): Promise<IncidentPage> {
    const url = withRange(new URL('incidents', base), options);
    if (options.deviceId !== undefined) url.searchParams.set('device_id', String(options.deviceId));
    if (options.heartbeatId !== undefined) url.searchParams.set('heartbeat_id', String(options.heartbeatId));
    if (options.limit !== undefined) url.searchParams.set('limit', String(options.limit));
    if (options.beforeId !== undefined) url.searchParams.set('before_id', String(options.beforeId));
    const answer = await transport.send<Incident[]>('GET', url, undefined, {
      signal: options.signal,
      requestId: options.requestId,
    });
    const next = nextLink(answer.headers, answer.url);
    return { data: answer.data, next: next === null ? null : incidentCursorOf(next, answer.url) };
  }

  async function* allIncidents(options: AllIncidentsOptions = {}): AsyncGenerator<Incident, void, undefined> {
    const { pageSize, signal, requestId, ...range } = options;
    let cursor: IncidentOptions | IncidentCursor | null = { ...range, limit: pageSize ?? DEFAULT_PAGE_SIZE };
    while (cursor !== null) {
      const page: IncidentPage = await incidents({ ...cursor, signal, requestId });
      yield* page.data;
      cursor = page.next;
    }
  }

  return {
    availability(deviceId, options = {}) {
      const url = withRange(new URL('devices/availability', base), options);
      url.searchParams.set('id', String(deviceId));
      return get<AvailabilityReport>(url, options);
    },
    responseTimes(deviceId, options: ResponseTimeOptions = {}) {
      const url = withRange(new URL('devices/response-times', base), options);
      url.searchParams.set('id', String(deviceId));
      if (options.bucket !== undefined) url.searchParams.set('bucket', options.bucket);
      if (options.timeZone !== undefined) url.searchParams.set('time_zone', options.timeZone);
      return get<ResponseTimePoint[]>(url, options);
    },
    incidents,
    allIncidents,
    async acknowledge(incidentId, options = {}) {
      const url = new URL('incidents/acknowledge', base);
      url.searchParams.set('id', String(incidentId));
      return (await transport.send<Incident>('POST', url, undefined, options)).data;
    },
    listings(monitorId, options = {}) {
      const url = withRange(new URL('blacklist-monitors/listings', base), options);
      url.searchParams.set('id', String(monitorId));
      return get<ListingPeriod[]>(url, options);
    },
  };
}
