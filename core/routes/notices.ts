import * as v from 'valibot';
import { toTimestamp } from '../clock.ts';
import { successResponse, type ApiResponse } from '../http/api-response.ts';
import { errors } from '../http/errors.ts';
import { readJsonObject } from '../http/read-json-body.ts';
import type { Deleted, NewNotice, Notice, NoticeStatus, Timestamp } from '../records/index.ts';
import type { RouteContext } from './route-context.ts';
import { issuesToDetails, type FieldHints } from '../validation/details.ts';
import { decimal, MAX_ID, parseIdAlone, queryValues, refuseQuery } from '../validation/list-query.ts';
import { parseNoticeEdit, parseNoticeInput, type NoticeEdit } from '../validation/notice-input.ts';
import { failIfAny } from '../validation/parse-fields.ts';

const notFound = () => errors.notFound('notice_not_found');

/** When a notice is resolved, after an update to `status` at `at` (null while it is not resolved). */
function resolvedAt(before: Notice | null, status: NoticeStatus, at: Timestamp): Timestamp | null {
  if (status !== 'resolved') return null;
  return before !== null && before.status === 'resolved' ? before.resolved_at : at;
}

/** `notice` with `edit` applied at `at`, or null when it would not change. */
function edited(notice: Notice, edit: NoticeEdit, at: Timestamp): NewNotice | null {
  const { id: _id, ...to } = structuredClone(notice);
  if (edit.title !== undefined) to.title = edit.title;
  if (edit.impact !== undefined) to.impact = edit.impact;
  if (edit.component_indexes !== undefined) to.component_indexes = edit.component_indexes;
  if (edit.update !== undefined) {
    to.updates.push({ ...edit.update, at });
    to.status = edit.update.status;
    to.resolved_at = resolvedAt(notice, edit.update.status, at);
  }
  const same =
    edit.update === undefined &&
    to.title === notice.title &&
    to.impact === notice.impact &&
    to.component_indexes.join() === notice.component_indexes.join();
  if (same) return null;
  to.updated_at = at;
  return to;
}

/** The page's components count, for judging `component_indexes`; 400 when the page is not the user's. */
async function componentCount(call: RouteContext, statusPageId: number): Promise<number> {
  const page = await call.store.getStatusPage(call.key.user_id, statusPageId);
  if (page === undefined) {
    throw errors.validationFailed([
      {
        field: 'status_page_id',
        code: 'invalid_value',
        message: `status_page_id: ${statusPageId} is not one of your status pages.`,
      },
    ]);
  }
  return page.components.length;
}

function refuseIndexes(indexes: readonly number[] | undefined, count: number): void {
  if (indexes === undefined || indexes.every((i) => i < count)) return;
  failIfAny([
    {
      field: 'component_indexes',
      code: 'out_of_range',
      message: `component_indexes: the page has ${count} components, so an index is from 0 to ${count - 1}.`,
    },
  ]);
}

const listSchema = v.object({
  status_page_id: decimal(1, MAX_ID),
  limit: v.optional(decimal(1, 1000)),
  after_id: v.optional(decimal(0, MAX_ID)),
});
const listHints: FieldHints = {
  status_page_id: 'the id of one of your status pages, given once',
  limit: 'an integer from 1 to 1000, given once',
  after_id: `an integer from 0 to ${MAX_ID}, given once`,
};
const LIST_PARAMS = new Set(Object.keys(listSchema.entries));

/** The routes of /status-pages/notices (docs/status-pages.md, "Notices"). */
export const noticeRoutes = {
  /**
   * `GET /status-pages/notices?status_page_id=`: the page's notices ascending by id; with `limit`,
   * one page and `Link: rel="next"` while more follow, as the lists do (docs/contract.md §6.4).
   */
  async list(call: RouteContext): Promise<ApiResponse> {
    const { values, details } = queryValues(call.url.query, LIST_PARAMS, listHints);
    for (const repeated of details) delete values[repeated.field];
    const parsed = v.safeParse(listSchema, values, { abortEarly: false });
    if (!parsed.success) details.push(...issuesToDetails(parsed.issues, listHints));
    if (details.length > 0 || !parsed.success) throw errors.validationFailed(details);
    const { status_page_id: pageId, limit, after_id: afterId = 0 } = parsed.output;
    const size = limit === undefined ? call.listBatchSize : limit + 1;
    const notices: Notice[] = [];
    for (let after = afterId; ;) {
      const batch = await call.store.listNotices(call.key.user_id, pageId, { afterId: after, limit: size });
      if (batch === undefined) throw errors.notFound('status_page_not_found');
      notices.push(...batch);
      if (limit !== undefined || batch.length < size) break;
      after = batch.at(-1)!.id;
    }
    const headers: Record<string, string> = {};
    if (limit !== undefined && notices.length > limit) {
      notices.length = limit;
      const next = `${call.url.pathname}?status_page_id=${pageId}&limit=${limit}&after_id=${notices.at(-1)!.id}`;
      headers.link = `<${next}>; rel="next"`;
    }
    return successResponse(200, notices, headers);
  },

  async create(call: RouteContext): Promise<ApiResponse> {
    refuseQuery(call.url.query);
    const body = await readJsonObject(call.request, call.bodyLimit);
    const input = parseNoticeInput(body);
    refuseIndexes(input.component_indexes, await componentCount(call, input.status_page_id));
    const at = toTimestamp(call.now);
    const notice: NewNotice = {
      status_page_id: input.status_page_id,
      title: input.title,
      impact: input.impact,
      status: input.status,
      component_indexes: input.component_indexes,
      updates: [{ status: input.status, message: input.message, at }],
      created_at: at,
      updated_at: at,
      resolved_at: resolvedAt(null, input.status, at),
    };
    const created = await call.store.createNotice(call.key.user_id, notice);
    // The page was deleted between the two: judged as if it had never been the user's.
    if (created === undefined) await componentCount(call, input.status_page_id);
    return successResponse(201, created);
  },

  async get(call: RouteContext): Promise<ApiResponse> {
    const notice = await call.store.getNotice(call.key.user_id, parseIdAlone(call.url.query));
    if (notice === undefined) throw notFound();
    return successResponse(200, notice);
  },

  async update(call: RouteContext): Promise<ApiResponse> {
    const id = parseIdAlone(call.url.query);
    const body = await readJsonObject(call.request, call.bodyLimit);
    const userId = call.key.user_id;
    const from = await call.store.getNotice(userId, id);
    if (from === undefined) throw notFound();
    const edit = parseNoticeEdit(from, body);
    if (edit.component_indexes !== undefined) {
      refuseIndexes(edit.component_indexes, await componentCount(call, from.status_page_id));
    }
    const at = toTimestamp(call.now);
    const to = edited(from, edit, at);
    if (to === null) return successResponse(200, from);
    const fields = Object.keys(to).filter((name) => name !== 'status_page_id' && name !== 'created_at');
    // Written over a notice changed meanwhile, the edit is applied to it as it is now: its
    // update is appended after the one written first, and neither is lost.
    const reapply = (current: Notice) => {
      const again = edited(current, parseNoticeEdit(current, body), at);
      return again === null ? null : { to: again, fields, effect: 'none' as const, at, events: [] };
    };
    const result = await call.store.updateNotice(userId, id, {
      from,
      to,
      fields,
      effect: 'none',
      at,
      events: [],
      reapply,
    });
    if (result === undefined) throw notFound();
    if (!('updated' in result))
      throw new Error('updating a notice: the store answered neither the notice nor its absence');
    return successResponse(200, result.updated);
  },

  async remove(call: RouteContext): Promise<ApiResponse> {
    const id = parseIdAlone(call.url.query);
    if (!(await call.store.deleteNotice(call.key.user_id, id))) throw notFound();
    const deleted: Deleted = { id, deleted: true };
    return successResponse(200, deleted);
  },
};
