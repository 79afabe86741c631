import { toTimestamp } from '../clock.ts';
import { errors } from '../http/api-error.ts';
import { successResponse, type ApiResponse } from '../http/api-response.ts';
import { readJsonObject } from '../http/read-json-body.ts';
import { parseBlacklistMonitorInput } from '../validation/blacklist-monitor-input.ts';
import { parseDeleteId, refuseQuery } from '../validation/list-query.ts';
import type { Call } from './call.ts';
import { listResponse } from './list-response.ts';

export async function listBlacklistMonitors(call: Call): Promise<ApiResponse> {
  return listResponse(call, (page) => call.store.listBlacklistMonitors(call.key.user_id, page));
}

export async function createBlacklistMonitor(call: Call): Promise<ApiResponse> {
  refuseQuery(call.url.query);
  const body = await readJsonObject(call.request, call.bodyLimit);
  const monitor = parseBlacklistMonitorInput(body, call, toTimestamp(call.now));
  const result = await call.store.createBlacklistMonitor(call.key.user_id, monitor);
  if ('duplicateOf' in result) throw errors.duplicate('duplicate_blacklist_monitor', result.duplicateOf);
  return successResponse(201, result.created);
}

export async function deleteBlacklistMonitor(call: Call): Promise<ApiResponse> {
  const id = parseDeleteId(call.url.query);
  if (!(await call.store.deleteBlacklistMonitor(call.key.user_id, id))) throw errors.notFound('blacklist_monitor_not_found');
  return successResponse(200, { id, deleted: true });
}
