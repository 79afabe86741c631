/** The routes of /status-pages and /status-pages/notices in the OpenAPI document (docs/status-pages.md). */
import type { ApiError } from '../http/api-error.ts';
import { errors } from '../http/errors.ts';
import { AFTER_RATE_LIMIT, headers, RATE_LIMIT_HEADERS } from './headers.ts';
import type { Draft } from './operations.ts';
import {
  JSON_MEDIA,
  badRequest,
  errorResponseObject,
  everyOperation,
  responseRef,
  sampleDetails,
  success,
  unknownRouteErrors,
} from './response-objects.ts';
import { ref } from './schema-helpers.ts';
import type { ParameterObject, Reference, ResponseObject } from './types.ts';

const param = (name: string) => ({ $ref: `#/components/parameters/${name}` });
const TAG = 'status-pages';

export function statusPageParameters(): Record<string, ParameterObject> {
  return {
    StatusPageId: {
      name: 'status_page_id',
      in: 'query',
      required: true,
      description: "One of the user's status pages, exactly once (another user's or none: 404 status_page_not_found).",
      schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    },
  };
}

function notFound(error: ApiError, noun: string): ResponseObject {
  return errorResponseObject(
    `No such ${noun} for this user; or (unknown_*_route) the server URL does not end in the API's base path.`,
    [error, ...unknownRouteErrors()],
    headers(['X-Request-Id'], RATE_LIMIT_HEADERS),
  );
}

function refused(notFoundResponse: ResponseObject | Reference) {
  return {
    401: responseRef('Unauthorized'),
    403: responseRef('Forbidden'),
    404: notFoundResponse,
    429: responseRef('RateLimited'),
    500: responseRef('ServerError'),
    ...everyOperation(),
  };
}

const idOnly = () =>
  badRequest(
    'id is missing, repeated or not a positive integer (invalid_id), or another query parameter was given (validation_failed).',
    [
      errors.invalidId(),
      errors.validationFailed([{ field: 'x', code: 'unknown_field', message: 'x is not a field of this request.' }]),
    ],
  );

const bodyRefused = (withId: boolean) =>
  badRequest(
    `${withId ? 'The id is not valid (invalid_id), or t' : 'T'}he body is not JSON of the right media type, or it has invalid fields (every problem is listed in details).`,
    [
      ...(withId ? [errors.invalidId()] : []),
      errors.invalidContentType(),
      errors.invalidJson(),
      errors.validationFailed(sampleDetails()),
    ],
  );

const body = (schema: string, description: string) => ({
  description: `${description} Content-Type must be application/json (a charset parameter is allowed).`,
  required: true,
  content: { [JSON_MEDIA]: { schema: ref(schema) } },
});

function taken(description: string): ResponseObject {
  return errorResponseObject(
    description,
    [errors.takenByAnotherPage('slug'), errors.takenByAnotherPage('hostname')],
    AFTER_RATE_LIMIT(),
  );
}

/** The drafts of the ten routes, keyed `METHOD /path`. */
export function statusPageDrafts(): [string, Draft][] {
  const page = notFound(errors.notFound('status_page_not_found'), 'status page');
  const notice = notFound(errors.notFound('notice_not_found'), 'notice');
  return [
    [
      'GET /status-pages',
      {
        operationId: 'listStatusPages',
        summary: "List the status pages of the key's user",
        description:
          'Ascending by id; without `limit` every page, with `limit` one page of them and `Link: <...>; rel="next"` while more follow, as the other lists.',
        tags: [TAG],
        parameters: [param('Limit'), param('AfterId')],
        responses: {
          200: success('The status pages, ascending by id.', 'StatusPageListEnvelope', headers([], ['Link'])),
          400: badRequest('Invalid query parameters.', [errors.validationFailed(sampleDetails())]),
          ...refused(responseRef('UnknownRoute')),
        },
      },
    ],
    [
      'POST /status-pages/create',
      {
        operationId: 'createStatusPage',
        summary: 'Create a status page',
        description:
          "Fields not in the schema are refused (unknown_field); a component naming a record that is not the user's is invalid_value on `components[i]`, naming its index. The page is public at once at /status/<slug> (unless is_public is false).",
        tags: [TAG],
        requestBody: body('StatusPageInput', 'The status page.'),
        responses: {
          201: success('The status page as stored (defaults filled in).', 'StatusPageEnvelope'),
          400: bodyRefused(false),
          ...refused(responseRef('UnknownRoute')),
          409: taken('Another status page (of any user) has this slug or hostname.'),
          413: responseRef('PayloadTooLarge'),
        },
      },
    ],
    [
      'GET /status-pages/get',
      {
        operationId: 'getStatusPage',
        summary: 'One status page',
        description:
          "One status page of the key's user. A page that does not exist and another user's get the same 404.",
        tags: [TAG],
        parameters: [param('Id')],
        responses: { 200: success('The status page.', 'StatusPageEnvelope'), 400: idOnly(), ...refused(page) },
      },
    ],
    [
      'PATCH /status-pages/update',
      {
        operationId: 'updateStatusPage',
        summary: 'Change a status page',
        description:
          "Changes the fields given and no other, all or none, each judged as on create; fields the server keeps are read_only_field. `components` replaces the list whole. An unknown id, or another user's, is 404 whatever the body (its JSON form excepted).",
        tags: [TAG],
        parameters: [param('Id')],
        requestBody: body('StatusPageUpdate', 'The changes.'),
        responses: {
          200: success('The status page as changed.', 'StatusPageEnvelope'),
          400: bodyRefused(true),
          ...refused(page),
          409: taken('The change would give it a slug or hostname another status page has.'),
          413: responseRef('PayloadTooLarge'),
        },
      },
    ],
    [
      'DELETE /status-pages/delete',
      {
        operationId: 'deleteStatusPage',
        summary: 'Delete a status page',
        description:
          "Deletes one status page of the key's user and its notices; its public routes answer 404 from then on, as for a page that never existed.",
        tags: [TAG],
        parameters: [param('Id')],
        responses: { 200: success('Deleted.', 'DeletedEnvelope'), 400: idOnly(), ...refused(page) },
      },
    ],
    [
      'GET /status-pages/notices',
      {
        operationId: 'listNotices',
        summary: "The notices of one of the user's status pages",
        description:
          'Ascending by id; without `limit` every notice of the page, with `limit` one page of them and `Link: <...>; rel="next"` while more follow.',
        tags: [TAG],
        parameters: [param('StatusPageId'), param('Limit'), param('AfterId')],
        responses: {
          200: success('The notices, ascending by id.', 'NoticeListEnvelope', headers([], ['Link'])),
          400: badRequest(
            'status_page_id is missing or not a positive integer, limit or after_id is invalid, or another query parameter was given (validation_failed).',
            [errors.validationFailed(sampleDetails())],
          ),
          ...refused(page),
        },
      },
    ],
    [
      'POST /status-pages/notices/create',
      {
        operationId: 'createNotice',
        summary: 'Write a notice on a status page',
        description:
          "A notice and its first update (status and message, at the API's clock). status_page_id that is not one of the user's pages is invalid_value; a component index past the page's last is out_of_range.",
        tags: [TAG],
        requestBody: body('NoticeInput', 'The notice.'),
        responses: {
          201: success('The notice as stored.', 'NoticeEnvelope'),
          400: bodyRefused(false),
          ...refused(responseRef('UnknownRoute')),
          413: responseRef('PayloadTooLarge'),
        },
      },
    ],
    [
      'GET /status-pages/notices/get',
      {
        operationId: 'getNotice',
        summary: 'One notice',
        description: "One notice of the key's user. A notice that does not exist and another user's get the same 404.",
        tags: [TAG],
        parameters: [param('Id')],
        responses: { 200: success('The notice.', 'NoticeEnvelope'), 400: idOnly(), ...refused(notice) },
      },
    ],
    [
      'PATCH /status-pages/notices/update',
      {
        operationId: 'updateNotice',
        summary: 'Change a notice, or add an update to it',
        description:
          '`message` appends an update with its time (and `status`, else the current one); `title`, `impact` and `component_indexes` change in place. Concurrent updates are all kept, in the order they were written.',
        tags: [TAG],
        parameters: [param('Id')],
        requestBody: body('NoticeUpdate', 'The changes.'),
        responses: {
          200: success('The notice as changed.', 'NoticeEnvelope'),
          400: bodyRefused(true),
          ...refused(notice),
          413: responseRef('PayloadTooLarge'),
        },
      },
    ],
    [
      'DELETE /status-pages/notices/delete',
      {
        operationId: 'deleteNotice',
        summary: 'Delete a notice',
        description: "Deletes one notice of the key's user.",
        tags: [TAG],
        parameters: [param('Id')],
        responses: { 200: success('Deleted.', 'DeletedEnvelope'), 400: idOnly(), ...refused(notice) },
      },
    ],
  ];
}
