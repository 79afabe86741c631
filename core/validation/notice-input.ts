import * as v from 'valibot';
import type { ErrorDetail } from '../http/api-error.ts';
import {
  NOTICE_IMPACTS,
  NOTICE_STATUSES,
  type Notice,
  type NoticeImpact,
  type NoticeStatus,
} from '../records/index.ts';
import { detail, type FieldHints } from './details.ts';
import { integer, oneOf, optional, plainText, text } from './field-schemas.ts';
import { failIfAny, parseFields } from './parse-fields.ts';
import { MAX_COMPONENTS } from './status-page-input.ts';

// A notice's fields (docs/status-pages.md, "Notices"). Whether `status_page_id` is the user's page,
// and whether each of `component_indexes` is one of its components, are the route's to judge.

/** How many updates a notice may hold: a PATCH that would add one more is refused. */
export const MAX_NOTICE_UPDATES = 100;

const title = () =>
  v.pipe(
    text(200),
    v.check((s) => s.trim().length > 0, 'invalid_value'),
  );
const message = () =>
  v.pipe(
    plainText(5000),
    v.check((s) => s.trim().length > 0, 'invalid_value'),
  );
const indexes = () =>
  v.pipe(
    v.array(integer(0, MAX_COMPONENTS - 1), 'invalid_type'),
    v.check((list) => new Set(list).size === list.length, 'invalid_value'),
  );

export const noticeSchema = v.object(
  {
    status_page_id: integer(1, Number.MAX_SAFE_INTEGER),
    title: title(),
    impact: oneOf(NOTICE_IMPACTS),
    status: oneOf(NOTICE_STATUSES),
    message: message(),
    component_indexes: optional(indexes()),
  },
  'invalid_type',
);

export const noticeUpdateSchema = v.object(
  {
    // Required on create, so never null here (invalid_type); `component_indexes: null` is [].
    title: v.optional(title()),
    impact: v.optional(oneOf(NOTICE_IMPACTS)),
    status: v.optional(oneOf(NOTICE_STATUSES)),
    message: v.optional(message()),
    component_indexes: optional(indexes()),
  },
  'invalid_type',
);

export const noticeHints: FieldHints = {
  status_page_id: 'the id of one of your status pages',
  title: 'text of 1 to 200 characters without control characters',
  impact: `one of ${NOTICE_IMPACTS.join(', ')}`,
  status: `one of ${NOTICE_STATUSES.join(', ')}`,
  message: 'plain text of 1 to 5000 characters (line feeds allowed, no other control characters)',
  component_indexes: "a list of distinct indexes of the page's components (0 is the first)",
};

export interface NoticeInput {
  status_page_id: number;
  title: string;
  impact: NoticeImpact;
  status: NoticeStatus;
  message: string;
  component_indexes: number[];
}

const sorted = (list: readonly number[] | null | undefined) => [...(list ?? [])].sort((a, b) => a - b);

/** A notice's create body, or a 400 listing every problem. */
export function parseNoticeInput(input: Record<string, unknown>): NoticeInput {
  const { fields: f, details } = parseFields(noticeSchema, input, noticeHints);
  failIfAny(details);
  return {
    status_page_id: f.status_page_id!,
    title: f.title!,
    impact: f.impact!,
    status: f.status!,
    message: f.message!,
    component_indexes: sorted(f.component_indexes),
  };
}

/** The fields a PATCH changes, and the update it appends (when it gives `message`). */
export interface NoticeEdit {
  title?: string;
  impact?: NoticeImpact;
  component_indexes?: number[];
  update?: { status: NoticeStatus; message: string };
}

/**
 * A notice's PATCH body against the notice as it is (docs/status-pages.md, "Notices"): `title`,
 * `impact` and `component_indexes` change in place; `message` appends an update, with `status` or
 * else the notice's own; `status` without `message` is `missing` on `message`. Fields the server
 * keeps are `read_only_field`.
 */
export function parseNoticeEdit(notice: Notice, body: Record<string, unknown>): NoticeEdit {
  const known = new Set(Object.keys(noticeUpdateSchema.entries));
  const details: ErrorDetail[] = [];
  for (const name of Object.keys(body)) {
    if (known.has(name)) continue;
    details.push(detail(name, Object.hasOwn(notice, name) ? 'read_only_field' : 'unknown_field', noticeHints));
  }
  const given = Object.fromEntries(Object.entries(body).filter(([name]) => known.has(name)));
  const { fields: f, details: found } = parseFields(noticeUpdateSchema, given, noticeHints);
  details.push(...found);
  if (body.status !== undefined && body.message === undefined && !details.some((d) => d.field === 'message')) {
    details.push(detail('message', 'missing', noticeHints));
  }
  if (f.message != null && notice.updates.length >= MAX_NOTICE_UPDATES) {
    details.push({
      field: 'message',
      code: 'out_of_range',
      message: `message: the notice holds ${MAX_NOTICE_UPDATES} updates, the most it may; write a new notice.`,
    });
  }
  failIfAny(details);
  const edit: NoticeEdit = {};
  if (f.title != null) edit.title = f.title;
  if (f.impact != null) edit.impact = f.impact;
  if (Object.hasOwn(body, 'component_indexes')) edit.component_indexes = sorted(f.component_indexes);
  if (f.message != null) edit.update = { status: f.status ?? notice.status, message: f.message };
  return edit;
}
