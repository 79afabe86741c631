import { toTimestamp } from '../clock.ts';
import { errors, type DuplicateCode, type NotFoundCode } from '../http/errors.ts';
import { successResponse, type ApiResponse } from '../http/api-response.ts';
import { readJsonObject } from '../http/read-json-body.ts';
import type { Deleted } from '../records.ts';
import type { CreateResult, PageRequest, Store } from '../store.ts';
import { parseDeleteId, refuseQuery } from '../validation/list-query.ts';
import type { RouteContext } from './route-context.ts';
import { listResponse } from './list-response.ts';

/** What differs between the API's resources; list, create and delete work alike for all. */
export interface ResourceSpec<T extends { id: number }, New> {
  /** `options` is the call itself: the target policy and the installation's DNSBL zones. */
  parse(input: Record<string, unknown>, options: RouteContext, createdAt: string): New;
  list(store: Store, userId: number, page: PageRequest): Promise<T[]>;
  create(store: Store, userId: number, record: New): Promise<CreateResult<T>>;
  remove(store: Store, userId: number, id: number): Promise<boolean>;
  duplicate: DuplicateCode;
  notFound: NotFoundCode;
}

export interface ResourceRoutes {
  list(call: RouteContext): Promise<ApiResponse>;
  create(call: RouteContext): Promise<ApiResponse>;
  remove(call: RouteContext): Promise<ApiResponse>;
}

export function resourceRoutes<T extends { id: number }, New>(spec: ResourceSpec<T, New>): ResourceRoutes {
  return {
    list: (call) => listResponse(call, (page) => spec.list(call.store, call.key.user_id, page)),
    async create(call) {
      refuseQuery(call.url.query);
      const body = await readJsonObject(call.request, call.bodyLimit);
      const record = spec.parse(body, call, toTimestamp(call.now));
      const result = await spec.create(call.store, call.key.user_id, record);
      if ('duplicateOf' in result) throw errors.duplicate(spec.duplicate, result.duplicateOf);
      return successResponse(201, result.created);
    },
    async remove(call) {
      const id = parseDeleteId(call.url.query);
      if (!(await spec.remove(call.store, call.key.user_id, id))) throw errors.notFound(spec.notFound);
      const deleted: Deleted = { id, deleted: true };
      return successResponse(200, deleted);
    },
  };
}
