/**
 * Status pages and notices in the OpenAPI document (docs/status-pages.md): create and update
 * bodies, the records and their envelopes. Written by hand: components are judged item by item
 * and the time zone and hostname by rules of their own, which the converter cannot read.
 */
import type { JsonSchema } from '@valibot/to-json-schema';
import { NOTICE_IMPACTS, NOTICE_STATUSES, type Notice, type StatusPage } from '../records/index.ts';
import { MAX_NOTICE_UPDATES } from '../validation/notice-input.ts';
import { HISTORY_DAYS, MAX_COMPONENTS } from '../validation/status-page-input.ts';
import { NO_CONTROL_CHARACTERS } from './request-schemas.ts';
import { nullable, ref } from './schema-helpers.ts';

const FLAG_OR_NULL: JsonSchema = { anyOf: [{ type: 'boolean' }, { type: 'integer', enum: [0, 1] }, { type: 'null' }] };
const ID: JsonSchema = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER };
/** Text without control characters but the line feed. */
const PLAIN_TEXT = '^[^\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f]*$';
const named = (max: number): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: max,
  pattern: NO_CONTROL_CHARACTERS,
});
const orNull = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });

function component(input: boolean): JsonSchema {
  const base = (id: 'device_id' | 'blacklist_monitor_id' | 'heartbeat_id'): JsonSchema => ({
    type: 'object',
    required: input ? [id] : ['name', 'group', id],
    additionalProperties: false,
    properties: {
      name: input ? orNull(named(100)) : { type: 'string' },
      group: input ? orNull(named(100)) : nullable({ type: 'string' }),
      [id]: input ? ID : ref('Id'),
    },
  });
  return {
    description: input
      ? "A line of the page: exactly one record of the user's (device_id, blacklist_monitor_id or heartbeat_id; invalid_value naming the index otherwise), its public name (default: the record's own name, when it has one, as a heartbeat's may; else required) and an optional group."
      : 'A line of the page: its record, public name and group.',
    oneOf: [base('device_id'), base('blacklist_monitor_id'), base('heartbeat_id')],
  };
}

function pageInputProperties(): Record<string, JsonSchema> {
  return {
    slug: {
      type: 'string',
      pattern: '^[a-z0-9-]{3,64}$',
      description: 'The page is served at /status/<slug>. Unique across the service: 409 duplicate_slug.',
    },
    title: named(100),
    description: {
      description: 'Plain text (line feeds kept). Default null.',
      ...orNull({ type: 'string', maxLength: 1000, pattern: PLAIN_TEXT }),
    },
    components: { type: 'array', minItems: 1, maxItems: MAX_COMPONENTS, items: ref('StatusPageComponentInput') },
    history_days: {
      description: `Days of bars per component. Default ${HISTORY_DAYS.default}.`,
      ...orNull({ type: 'integer', minimum: HISTORY_DAYS.min, maximum: HISTORY_DAYS.max }),
    },
    time_zone: {
      description: 'The IANA zone whose days the bars are (invalid_value when unknown). Default UTC.',
      ...orNull({ type: 'string' }),
    },
    show_response_times: { description: 'Response times per day on the page. Default false.', ...FLAG_OR_NULL },
    show_targets: {
      description: 'Targets (names, addresses, ports) on the page. Default false: never shown.',
      ...FLAG_OR_NULL,
    },
    hostname: {
      description:
        'A custom domain serving the page (its Host header), stored lower-case in ASCII. Unique: 409 duplicate_hostname. Default null.',
      ...orNull({ type: 'string', maxLength: 253 }),
    },
    is_public: { description: 'Default true. false: every public route answers 404.', ...FLAG_OR_NULL },
  };
}

function noticeInputProperties(): Record<string, JsonSchema> {
  return {
    status_page_id: { description: "One of the user's status pages (invalid_value otherwise).", ...ID },
    title: named(200),
    impact: { type: 'string', enum: [...NOTICE_IMPACTS] },
    status: { type: 'string', enum: [...NOTICE_STATUSES] },
    message: { type: 'string', minLength: 1, maxLength: 5000, pattern: PLAIN_TEXT },
    component_indexes: {
      description:
        "Indexes of the page's components it concerns (out_of_range past the last). Default []: the whole page.",
      ...orNull({
        type: 'array',
        uniqueItems: true,
        items: { type: 'integer', minimum: 0, maximum: MAX_COMPONENTS - 1 },
      }),
    },
  };
}

const envelope = (data: JsonSchema, description: string): JsonSchema => ({
  type: 'object',
  description,
  required: ['success', 'data'],
  properties: { success: { const: true }, data },
});

export function statusPageSchemas(): Record<string, JsonSchema> {
  const page: { [K in keyof StatusPage]-?: JsonSchema } = {
    id: ref('Id'),
    slug: { type: 'string' },
    title: { type: 'string' },
    description: nullable({ type: 'string' }),
    components: { type: 'array', items: ref('StatusPageComponent') },
    history_days: { type: 'integer' },
    time_zone: { type: 'string' },
    show_response_times: { type: 'boolean' },
    show_targets: { type: 'boolean' },
    hostname: nullable({ type: 'string' }),
    is_public: { type: 'boolean' },
    created_at: ref('Timestamp'),
    updated_at: { description: 'When the settings last changed.', ...ref('Timestamp') },
  };
  const notice: { [K in keyof Notice]-?: JsonSchema } = {
    id: ref('Id'),
    status_page_id: ref('Id'),
    title: { type: 'string' },
    impact: { type: 'string', enum: [...NOTICE_IMPACTS] },
    status: { description: "The last update's status.", type: 'string', enum: [...NOTICE_STATUSES] },
    component_indexes: { type: 'array', items: { type: 'integer', minimum: 0 } },
    updates: {
      description: `Oldest first, at most ${MAX_NOTICE_UPDATES}.`,
      type: 'array',
      items: {
        type: 'object',
        required: ['status', 'message', 'at'],
        additionalProperties: false,
        properties: {
          status: { type: 'string', enum: [...NOTICE_STATUSES] },
          message: { type: 'string' },
          at: ref('Timestamp'),
        },
      },
    },
    created_at: ref('Timestamp'),
    updated_at: ref('Timestamp'),
    resolved_at: { description: 'When it became resolved; null while it is not.', ...nullable(ref('Timestamp')) },
  };
  return {
    StatusPageComponentInput: component(true),
    StatusPageComponent: component(false),
    StatusPageInput: {
      type: 'object',
      description: "A status page: what the public sees of some of the user's records.",
      required: ['slug', 'title', 'components'],
      additionalProperties: false,
      properties: pageInputProperties(),
    },
    StatusPageUpdate: {
      type: 'object',
      description:
        "Changes to a status page: any subset of the create's fields, each judged as on create, the page that results judged as a whole. Components are replaced whole; those the page held already are not judged again.",
      additionalProperties: false,
      properties: pageInputProperties(),
    },
    StatusPage: { type: 'object', description: 'A status page.', required: Object.keys(page), properties: page },
    StatusPageEnvelope: envelope(ref('StatusPage'), 'One status page.'),
    StatusPageListEnvelope: envelope({ type: 'array', items: ref('StatusPage') }, 'Status pages, ascending by id.'),
    NoticeInput: {
      type: 'object',
      description: 'A notice on a status page: its first update is `status` with `message`.',
      required: ['status_page_id', 'title', 'impact', 'status', 'message'],
      additionalProperties: false,
      properties: noticeInputProperties(),
    },
    NoticeUpdate: {
      type: 'object',
      description:
        '`title`, `impact` and `component_indexes` change in place; `message` appends an update (with `status`, else the current one); `status` without `message` is missing on message.',
      additionalProperties: false,
      properties: (({ status_page_id: _page, ...rest }) => rest)(noticeInputProperties()),
    },
    Notice: { type: 'object', description: 'A notice.', required: Object.keys(notice), properties: notice },
    NoticeEnvelope: envelope(ref('Notice'), 'One notice.'),
    NoticeListEnvelope: envelope({ type: 'array', items: ref('Notice') }, 'Notices, ascending by id.'),
  };
}
