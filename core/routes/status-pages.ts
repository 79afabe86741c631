import { toTimestamp } from '../clock.ts';
import { successResponse, type ApiResponse } from '../http/api-response.ts';
import { errors } from '../http/errors.ts';
import type { ErrorDetail } from '../http/api-error.ts';
import { readJsonObject } from '../http/read-json-body.ts';
import type { Deleted, NewStatusPage, StatusPage, StatusPageComponent } from '../records/index.ts';
import type { StatusPageCreateResult, StatusPageUpdateResult } from '../store/status-page-store.ts';
import { parseIdAlone, refuseQuery } from '../validation/list-query.ts';
import { failIfAny } from '../validation/parse-fields.ts';
import { parsePatch } from '../validation/patch-input.ts';
import {
  foreignComponentDetail,
  parseStatusPageInput,
  statusPageHints,
  statusPageSchema,
  unnamedComponentDetail,
  type ParsedComponent,
  type ParsedStatusPage,
} from '../validation/status-page-input.ts';
import { listResponse } from './list-response.ts';
import { changedFields } from './record-change.ts';
import type { RouteContext } from './route-context.ts';

const FIELDS = Object.keys(statusPageSchema.entries);
/** What an update writes: the settings, and when they changed. */
const WRITTEN = [...FIELDS, 'updated_at'];

const notFound = () => errors.notFound('status_page_not_found');

/** A component's record, as `kind:id`. */
const recordKey = (c: ParsedComponent | StatusPageComponent) =>
  c.device_id !== undefined
    ? `device:${c.device_id}`
    : c.heartbeat_id !== undefined
      ? `heartbeat:${c.heartbeat_id}`
      : `monitor:${c.blacklist_monitor_id}`;

const at = (call: RouteContext) => new Date(call.now).toISOString();

/**
 * A record's own name, read without assuming the record has one: devices and blacklist monitors
 * gain `name` in a later version, and a component then defaults to it, as it does to a
 * heartbeat's (docs/status-pages.md).
 */
function nameOf(record: object | undefined): string | null {
  const name = (record as { name?: unknown } | undefined)?.name ?? null;
  if (typeof name !== 'string' || name.trim() === '') return null;
  return [...name].slice(0, 100).join('');
}

/**
 * The components as stored: each id judged to be one of the user's records (those the page held
 * already are not judged again, so a record deleted later does not block a change of the title),
 * each name given or else lent by its record. One 400 lists every problem.
 */
async function resolveComponents(
  call: RouteContext,
  parsed: readonly ParsedComponent[],
  held: readonly StatusPageComponent[] = [],
): Promise<StatusPageComponent[]> {
  const heldKeys = new Set(held.map(recordKey));
  const asked = parsed.filter((c) => !heldKeys.has(recordKey(c)) || c.name === null);
  const heartbeatIds = asked.flatMap((c) => (c.heartbeat_id === undefined ? [] : [c.heartbeat_id]));
  const [records, heartbeats] =
    asked.length === 0
      ? [{ devices: [], blacklist_monitors: [] }, []]
      : await Promise.all([
          call.store.componentRecords(call.key.user_id, {
            device_ids: asked.flatMap((c) => (c.device_id === undefined ? [] : [c.device_id])),
            blacklist_monitor_ids: asked.flatMap((c) =>
              c.blacklist_monitor_id === undefined ? [] : [c.blacklist_monitor_id],
            ),
          }),
          // Only the records are wanted: an empty range reads no timeline to speak of.
          call.store.heartbeatTimelines(call.key.user_id, heartbeatIds, { from: at(call), to: at(call) }),
        ]);
  const found = new Map<string, object>([
    ...records.devices.map((d): [string, object] => [`device:${d.id}`, d]),
    ...records.blacklist_monitors.map((m): [string, object] => [`monitor:${m.id}`, m]),
    ...heartbeats.map(({ heartbeat }): [string, object] => [`heartbeat:${heartbeat.id}`, heartbeat]),
  ]);
  const details: ErrorDetail[] = [];
  const components: StatusPageComponent[] = [];
  parsed.forEach((component, index) => {
    const record = found.get(recordKey(component));
    if (record === undefined && !heldKeys.has(recordKey(component))) {
      details.push(foreignComponentDetail(index, component));
      return;
    }
    const name = component.name ?? nameOf(record);
    if (name === null) details.push(unnamedComponentDetail(index));
    else components.push({ ...component, name } as StatusPageComponent);
  });
  failIfAny(details);
  return components;
}

function refuseConflict<T>(result: StatusPageCreateResult | StatusPageUpdateResult | T): void {
  if (typeof result === 'object' && result !== null && 'conflict' in result) {
    throw errors.takenByAnotherPage(result.conflict);
  }
}

/** The routes of /status-pages (docs/status-pages.md, "Managing pages"). */
export const statusPageRoutes = {
  // Never a kept answer: no change marker counts status pages.
  list: (call: RouteContext): Promise<ApiResponse> =>
    listResponse(call, (page) => call.store.listStatusPages(call.key.user_id, page), false),

  async create(call: RouteContext): Promise<ApiResponse> {
    refuseQuery(call.url.query);
    const body = await readJsonObject(call.request, call.bodyLimit);
    const parsed = parseStatusPageInput(body);
    const components = await resolveComponents(call, parsed.components);
    const at = toTimestamp(call.now);
    const page: NewStatusPage = { ...parsed, components, created_at: at, updated_at: at };
    const result = await call.store.createStatusPage(call.key.user_id, page);
    refuseConflict(result);
    return successResponse(201, (result as { created: StatusPage }).created);
  },

  async get(call: RouteContext): Promise<ApiResponse> {
    const page = await call.store.getStatusPage(call.key.user_id, parseIdAlone(call.url.query));
    if (page === undefined) throw notFound();
    return successResponse(200, page);
  },

  async update(call: RouteContext): Promise<ApiResponse> {
    const id = parseIdAlone(call.url.query);
    const body = await readJsonObject(call.request, call.bodyLimit);
    const userId = call.key.user_id;
    const at = toTimestamp(call.now);
    const from = await call.store.getStatusPage(userId, id);
    if (from === undefined) throw notFound();
    const judge = (record: StatusPage): ParsedStatusPage =>
      parsePatch<StatusPage, ParsedStatusPage>(
        { schema: statusPageSchema, hints: statusPageHints, parse: parseStatusPageInput },
        record,
        body,
      );
    const parsed = judge(from);
    const components = await resolveComponents(call, parsed.components, from.components);
    const to: NewStatusPage = { ...parsed, components, created_at: from.created_at, updated_at: at };
    if (changedFields(from, to, FIELDS).length === 0) return successResponse(200, from);
    // Changed by someone else since it was read, the page is judged again as it is now. Its
    // components need no second look: each one the body names was judged here, or is held by the
    // page as read, and a page only ever holds components of its user's records.
    const reapply = (current: StatusPage) => {
      const again = judge(current);
      const named = Object.hasOwn(body, 'components') ? components : current.components;
      const next: NewStatusPage = { ...again, components: named, created_at: current.created_at, updated_at: at };
      if (changedFields(current, next, FIELDS).length === 0) return null;
      return { to: next, fields: WRITTEN, effect: 'none' as const, at, events: [] };
    };
    const result = await call.store.updateStatusPage(userId, id, {
      from,
      to,
      fields: WRITTEN,
      effect: 'none',
      at,
      events: [],
      reapply,
    });
    if (result === undefined) throw notFound();
    refuseConflict(result);
    if (!('updated' in result))
      throw new Error('updating a status page: the store answered neither the page nor a conflict');
    return successResponse(200, result.updated);
  },

  async remove(call: RouteContext): Promise<ApiResponse> {
    const id = parseIdAlone(call.url.query);
    if (!(await call.store.deleteStatusPage(call.key.user_id, id))) throw notFound();
    const deleted: Deleted = { id, deleted: true };
    return successResponse(200, deleted);
  },
};
