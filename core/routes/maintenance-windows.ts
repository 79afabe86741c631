import { toTimestamp } from '../clock.ts';
import { successResponse, type ApiResponse } from '../http/api-response.ts';
import { errors } from '../http/errors.ts';
import { readJsonObject } from '../http/read-json-body.ts';
import { currentOrNext, occurrenceAt } from '../maintenance/window-times.ts';
import type { Deleted, MaintenanceWindow, NewMaintenanceWindow, StoredMaintenanceWindow } from '../records/index.ts';
import {
  foreignIdDetails,
  maintenanceWindowHints,
  maintenanceWindowSchema,
  parseMaintenanceWindowInput,
} from '../validation/maintenance-window-input.ts';
import { failIfAny } from '../validation/parse-fields.ts';
import { parseIdAlone, refuseQuery } from '../validation/list-query.ts';
import { parsePatch } from '../validation/patch-input.ts';
import { changedFields } from './record-change.ts';
import { listResponse } from './list-response.ts';
import type { RouteContext } from './route-context.ts';

const FIELDS = Object.keys(maintenanceWindowSchema.entries);

/** A window as the API shows it: with when it is in force, as of the request's clock reading. */
function shown(window: StoredMaintenanceWindow, now: number): MaintenanceWindow {
  const next = currentOrNext(window, now);
  return {
    ...window,
    active_now: occurrenceAt(window, now) !== null,
    next_start_at: next === null ? null : toTimestamp(next.start),
    next_end_at: next === null ? null : toTimestamp(next.end),
  };
}

/** Ids the window names that are not the user's: one `invalid_value` each (docs/contract.md §6.10). */
async function refuseForeignIds(
  call: RouteContext,
  window: NewMaintenanceWindow,
  before?: StoredMaintenanceWindow,
): Promise<void> {
  const details = [];
  for (const [field, kind] of [
    ['device_ids', 'device'],
    ['blacklist_monitor_ids', 'blacklist_monitor'],
    ['heartbeat_ids', 'heartbeat'],
  ] as const) {
    // Ids a window already held and keeps are not judged again: a deleted device stays harmless.
    const asked = window[field].filter((id) => !(before?.[field].includes(id) ?? false));
    if (asked.length === 0) continue;
    const owned = new Set(await call.store.ownedIds(call.key.user_id, kind, asked));
    details.push(
      ...foreignIdDetails(
        field,
        asked.filter((id) => !owned.has(id)),
      ),
    );
  }
  failIfAny(details);
}

const notFound = () => errors.notFound('maintenance_window_not_found');

/** The routes of /maintenance-windows (docs/contract.md §6.10). */
export const maintenanceWindowRoutes = {
  list: (call: RouteContext): Promise<ApiResponse> =>
    listResponse(
      call,
      async (page) =>
        (await call.store.listMaintenanceWindows(call.key.user_id, page)).map((window) => shown(window, call.now)),
      false,
    ),

  async create(call: RouteContext): Promise<ApiResponse> {
    refuseQuery(call.url.query);
    const body = await readJsonObject(call.request, call.bodyLimit);
    const window = parseMaintenanceWindowInput(body, toTimestamp(call.now));
    await refuseForeignIds(call, window);
    return successResponse(201, shown(await call.store.createMaintenanceWindow(call.key.user_id, window), call.now));
  },

  async get(call: RouteContext): Promise<ApiResponse> {
    const window = await call.store.getMaintenanceWindow(call.key.user_id, parseIdAlone(call.url.query));
    if (window === undefined) throw notFound();
    return successResponse(200, shown(window, call.now));
  },

  async update(call: RouteContext): Promise<ApiResponse> {
    const id = parseIdAlone(call.url.query);
    const body = await readJsonObject(call.request, call.bodyLimit);
    const userId = call.key.user_id;
    const at = toTimestamp(call.now);
    const judge = (record: StoredMaintenanceWindow) => {
      // The answer's computed fields are the server's: naming them is read_only_field.
      const to = parsePatch<MaintenanceWindow, NewMaintenanceWindow>(
        {
          schema: maintenanceWindowSchema,
          hints: maintenanceWindowHints,
          parse: (input) => parseMaintenanceWindowInput(input, record.created_at),
        },
        shown(record, call.now),
        body,
      );
      if (changedFields(record, to, FIELDS).length === 0) return null;
      return { to, fields: FIELDS, effect: 'none' as const, at, events: [] };
    };
    const from = await call.store.getMaintenanceWindow(userId, id);
    if (from === undefined) throw notFound();
    const change = judge(from);
    if (change === null) return successResponse(200, shown(from, call.now));
    await refuseForeignIds(call, change.to, from);
    // Changed by someone else since it was read, the window is judged again as it is now; its ids
    // need no second look: each one the body names was judged here or held by the window as read,
    // and a window only ever holds ids of its user's records.
    const result = await call.store.updateMaintenanceWindow(userId, id, { ...change, from, reapply: judge });
    if (result === undefined) throw notFound();
    if ('duplicateOf' in result || 'stale' in result) {
      throw new Error('updating a maintenance window: the store answered neither the window nor its absence');
    }
    return successResponse(200, shown(result.updated, call.now));
  },

  async remove(call: RouteContext): Promise<ApiResponse> {
    const id = parseIdAlone(call.url.query);
    if (!(await call.store.deleteMaintenanceWindow(call.key.user_id, id))) throw notFound();
    const deleted: Deleted = { id, deleted: true };
    return successResponse(200, deleted);
  },
};
