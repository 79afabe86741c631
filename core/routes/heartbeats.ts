import * as v from 'valibot';
import { toTimestamp } from '../clock.ts';
import { successResponse, type ApiResponse } from '../http/api-response.ts';
import { errors } from '../http/errors.ts';
import { readJsonObject } from '../http/read-json-body.ts';
import type { Deleted, Heartbeat, StoredHeartbeat } from '../records/index.ts';
import { availabilityReport, heartbeatTotals } from '../reports/availability.ts';
import type { HeartbeatChange } from '../store/heartbeat-store.ts';
import { flag, optional } from '../validation/field-schemas.ts';
import { heartbeatHints, heartbeatSchema, parseHeartbeatInput } from '../validation/heartbeat-input.ts';
import { parseIdAlone, refuseQuery } from '../validation/list-query.ts';
import { parsePatch } from '../validation/patch-input.ts';
import { parseRecordRangeQuery } from '../validation/report-query.ts';
import { refuseForeignChannels } from './channel-ids.ts';
import { changedFields } from './record-change.ts';
import { listResponse } from './list-response.ts';
import { newestFirstRoute } from './results-routes.ts';
import type { RouteContext } from './route-context.ts';

const FIELDS = Object.keys(heartbeatSchema.entries);

/** What a PATCH of a heartbeat may give besides the create's fields. */
const EXTRA = v.object({ rotate_token: optional(flag()) }, 'invalid_type');
const HINTS = { ...heartbeatHints, rotate_token: 'true, false, 0 or 1' };

const notFound = () => errors.notFound('heartbeat_not_found');

/**
 * Where the ping routes of this API are, as a client outside reaches them: `--public-url` when the
 * host gave one, else the request's own origin (from its absolute URL, or its Host header).
 */
function publicBase(call: RouteContext): string {
  if (call.publicUrl !== undefined) return call.publicUrl;
  if (call.url.origin !== '') return call.url.origin;
  const host = call.request.headers.get('host');
  return host === null ? '' : `http://${host}`;
}

/**
 * A heartbeat as the caller may see it: `ping_url` (which carries the token, with which anyone can
 * ping) only for a key with the `write` scope (docs/heartbeats.md, "The resource").
 */
export function shownHeartbeat(call: RouteContext, record: StoredHeartbeat): Heartbeat {
  const { ping_token, ...shown } = record;
  if (!call.key.scopes.includes('write')) return shown;
  return { ...shown, ping_url: `${publicBase(call)}/ping/${ping_token}` };
}

/** The routes of /heartbeats (docs/heartbeats.md, "The resource"). */
export const heartbeatRoutes = {
  list: (call: RouteContext): Promise<ApiResponse> =>
    // Never kept: `ping_url` depends on the key's scope and the request's origin.
    listResponse(
      call,
      async (page) =>
        (await call.store.listHeartbeats(call.key.user_id, page)).map((record) => shownHeartbeat(call, record)),
      false,
    ),

  async create(call: RouteContext): Promise<ApiResponse> {
    refuseQuery(call.url.query);
    const body = await readJsonObject(call.request, call.bodyLimit);
    const settings = parseHeartbeatInput(body);
    await refuseForeignChannels(call, settings, body);
    // A random UUID, version 4 in lower case, as Healthchecks' tokens are: made after validation,
    // so a refused request costs no randomness.
    const created = await call.store.createHeartbeat(call.key.user_id, {
      ...settings,
      ping_token: crypto.randomUUID(),
      created_at: toTimestamp(call.now),
    });
    return successResponse(201, shownHeartbeat(call, created));
  },

  async get(call: RouteContext): Promise<ApiResponse> {
    const record = await call.store.getHeartbeat(call.key.user_id, parseIdAlone(call.url.query));
    if (record === undefined) throw notFound();
    return successResponse(200, shownHeartbeat(call, record));
  },

  /**
   * A PATCH, judged as a maintenance window's is: against the record as read, and again against
   * the record as it is now when someone changed it meanwhile. `rotate_token: true` gives it a new
   * token at once; the old one is unknown to the ping routes from the moment this answers.
   */
  async update(call: RouteContext): Promise<ApiResponse> {
    const id = parseIdAlone(call.url.query);
    const body = await readJsonObject(call.request, call.bodyLimit);
    const userId = call.key.user_id;
    const at = toTimestamp(call.now);
    const judge = (record: StoredHeartbeat) => {
      const settings = parsePatch<Heartbeat, ReturnType<typeof parseHeartbeatInput>>(
        { schema: heartbeatSchema, hints: HINTS, parse: parseHeartbeatInput, extra: EXTRA },
        shownHeartbeat(call, record),
        body,
      );
      // Judged already (parsePatch): the flag as a boolean, or absent.
      const rotate = v.parse(EXTRA, body).rotate_token ?? false;
      if (changedFields(record, settings, FIELDS).length === 0 && !rotate) return null;
      const to: HeartbeatChange = { ...settings, ping_token: rotate ? crypto.randomUUID() : record.ping_token };
      return { to, fields: [...FIELDS, 'ping_token'], effect: 'none' as const, at, events: [] };
    };
    const from = await call.store.getHeartbeat(userId, id);
    if (from === undefined) throw notFound();
    const change = judge(from);
    if (change === null) return successResponse(200, shownHeartbeat(call, from));
    await refuseForeignChannels(call, change.to, body);
    const result = await call.store.updateHeartbeat(userId, id, { ...change, from, reapply: judge });
    if (result === undefined) throw notFound();
    if ('duplicateOf' in result || 'stale' in result) {
      throw new Error('updating a heartbeat: the store answered neither the heartbeat nor its absence');
    }
    return successResponse(200, shownHeartbeat(call, result.updated));
  },

  async remove(call: RouteContext): Promise<ApiResponse> {
    const id = parseIdAlone(call.url.query);
    if (!(await call.store.deleteHeartbeat(call.key.user_id, id))) throw notFound();
    const deleted: Deleted = { id, deleted: true };
    return successResponse(200, deleted);
  },

  /** `GET /heartbeats/results?id=`: its pings, newest first, paged as the results routes are. */
  results: newestFirstRoute(
    (call, id, page) => call.store.listHeartbeatPings(call.key.user_id, id, page),
    'heartbeat_not_found',
  ),

  /** `GET /heartbeats/availability?id=&from=&to=`: as a device's (docs/reports.md, "Availability"). */
  async availability(call: RouteContext): Promise<ApiResponse> {
    const { id, range } = parseRecordRangeQuery(call.url.query, call.now);
    const totals = await call.store.heartbeatStatusTotals(call.key.user_id, id, range);
    if (totals === undefined) throw notFound();
    return successResponse(200, availabilityReport(range, heartbeatTotals(totals)));
  },
};
