import { toTimestamp } from '../clock.ts';
import { errors } from '../http/api-error.ts';
import { successResponse, type ApiResponse } from '../http/api-response.ts';
import { readJsonObject } from '../http/read-json-body.ts';
import { parseDeviceInput } from '../validation/device-input.ts';
import { parseDeleteId, refuseQuery } from '../validation/list-query.ts';
import type { Call } from './call.ts';
import { listResponse } from './list-response.ts';

export async function listDevices(call: Call): Promise<ApiResponse> {
  return listResponse(call, (page) => call.store.listDevices(call.key.user_id, page));
}

export async function createDevice(call: Call): Promise<ApiResponse> {
  refuseQuery(call.url.query);
  const body = await readJsonObject(call.request, call.bodyLimit);
  const device = parseDeviceInput(body, call, toTimestamp(call.now));
  const result = await call.store.createDevice(call.key.user_id, device);
  if ('duplicateOf' in result) throw errors.duplicate('duplicate_device', result.duplicateOf);
  return successResponse(201, result.created);
}

export async function deleteDevice(call: Call): Promise<ApiResponse> {
  const id = parseDeleteId(call.url.query);
  if (!(await call.store.deleteDevice(call.key.user_id, id))) throw errors.notFound('device_not_found');
  return successResponse(200, { id, deleted: true });
}
