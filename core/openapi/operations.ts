/** The operations of the OpenAPI document, one draft per route of ROUTES. */
import { errors } from '../http/errors.ts';
import { DEFAULT_RESULTS_LIMIT } from '../validation/results-query.ts';
import { ref } from './schema-helpers.ts';
import { AFTER_RATE_LIMIT, headers, RATE_LIMIT_HEADERS } from './headers.ts';
import type { OperationObject, Reference, ResponseObject } from './types.ts';
import { DEFAULTS } from '../options.ts';
import {
  JSON_MEDIA,
  badRequest,
  errorResponseObject,
  everyOperation,
  responseRef,
  sampleDetails,
  spentQuota,
  success,
  unknownRouteErrors,
} from './response-objects.ts';
import { RESOURCES, type Resource } from './resources.ts';

/** The 404 of an operation on one record: that record is not the user's, or the URL is off. */
function notFound(r: Resource): ResponseObject {
  return errorResponseObject(
    `No such ${r.noun} for this user; or (unknown_*_route) the server URL does not end in the API's base path.`,
    [r.notFound, ...unknownRouteErrors()],
    headers(['X-Request-Id'], RATE_LIMIT_HEADERS),
  );
}

/** What a resource's own 400s add to the description of its create and update. */
function refusedHow(r: Resource): string {
  return r.refusals?.some((error) => error.code === 'email_unavailable')
    ? ', or it makes an email channel on a server that cannot send mail (email_unavailable)'
    : '';
}

export type Draft = Omit<OperationObject, 'security' | 'x-required-scope' | 'responses'> & {
  responses: Record<string, ResponseObject | Reference>;
};

/** What an operation on one record of the key's user answers when the key may not, or the record is not the user's. */
export function refusedForRecord(r: Resource): Record<401 | 403 | 404, ResponseObject | Reference> {
  return { 401: responseRef('Unauthorized'), 403: responseRef('Forbidden'), 404: notFound(r) };
}

/** The 400 of an operation whose query holds only `id`. */
function idOnlyQueryRefused(): ResponseObject {
  return badRequest(
    'id is missing, repeated or not a positive integer (invalid_id), or another query parameter was given (validation_failed).',
    [
      errors.invalidId(),
      errors.validationFailed([{ field: 'x', code: 'unknown_field', message: 'x is not a field of this request.' }]),
    ],
  );
}

/** The 400 of a newest-first page of one record's rows (`id`, `limit`, `before_id`). */
export function pagedQueryRefused(): ResponseObject {
  return badRequest(
    'id is missing, repeated or not a positive integer (invalid_id), or limit or before_id is invalid, or another query parameter was given (validation_failed).',
    [
      errors.invalidId(),
      errors.validationFailed([
        { field: 'limit', code: 'out_of_range', message: 'limit must be an integer from 1 to 1000, given once.' },
      ]),
    ],
  );
}

/** What sets one paged operation apart from the others (`pagedRecordOperation`). */
export interface PagedRecordRows {
  operationId: string;
  summary: string;
  description: string;
  /** The 200's description. */
  answered: string;
  /** The schema of the 200's envelope. */
  envelope: string;
}

/**
 * A newest-first page of one record's rows (`id`, `limit`, `before_id`, `Link: rel="next"`): a
 * device's or monitor's results, a heartbeat's pings, a webhook's or channel's delivery attempts.
 */
export function pagedRecordOperation(r: Resource, rows: PagedRecordRows): Draft {
  return {
    operationId: rows.operationId,
    summary: rows.summary,
    description: rows.description,
    tags: [r.tag],
    parameters: [
      { $ref: '#/components/parameters/Id' },
      { $ref: '#/components/parameters/ResultsLimit' },
      { $ref: '#/components/parameters/BeforeId' },
    ],
    responses: {
      200: success(rows.answered, rows.envelope, headers([], ['Link'])),
      400: pagedQueryRefused(),
      ...refusedForRecord(r),
      429: responseRef('RateLimited'),
      500: responseRef('ServerError'),
      ...everyOperation(),
    },
  };
}

/** What each route of ROUTES is, keyed `METHOD /path`. A route without an entry fails generation. */
export function drafts(): Map<string, Draft> {
  const map = new Map<string, Draft>();
  const queryRefused = () => badRequest('Invalid query parameters.', [errors.validationFailed(sampleDetails())]);
  map.set('GET /me', {
    operationId: 'getMe',
    summary: 'The calling key and its user',
    description: 'Any valid key may call it, whatever its scopes. Takes no query parameters.',
    tags: ['me'],
    responses: {
      200: success('The key and its user.', 'MeEnvelope'),
      400: badRequest('A query parameter was given (this operation takes none).', [
        errors.validationFailed([{ field: 'x', code: 'unknown_field', message: 'x is not a field of this request.' }]),
      ]),
      401: responseRef('Unauthorized'),
      403: responseRef('ForbiddenAddress'),
      404: responseRef('UnknownRoute'),
      429: responseRef('RateLimited'),
      500: responseRef('ServerError'),
      ...everyOperation(),
    },
  });
  map.set('GET /locations', {
    operationId: 'listLocations',
    summary: 'The locations the monitoring engine checks from',
    description:
      'Every location with a worker heartbeat in the last 24 hours, by name: how many of its workers are live (a heartbeat younger than 30 s, by the database clock) and when one was last seen. A location whose workers all stopped stays listed with `live_workers: 0`. The same for every user. Takes no query parameters.',
    tags: ['locations'],
    responses: {
      200: success('The locations, by name.', 'LocationListEnvelope'),
      400: badRequest('A query parameter was given (this operation takes none).', [
        errors.validationFailed([{ field: 'x', code: 'unknown_field', message: 'x is not a field of this request.' }]),
      ]),
      401: responseRef('Unauthorized'),
      403: responseRef('Forbidden'),
      404: responseRef('UnknownRoute'),
      429: responseRef('RateLimited'),
      500: responseRef('ServerError'),
      ...everyOperation(),
    },
  });
  for (const r of RESOURCES) {
    map.set(`GET /${r.path}`, {
      operationId: `list${r.plural}`,
      summary: `List the ${r.noun}s of the key's user`,
      description: `Ascending by id. Without \`limit\`, every ${r.noun} of the user in one answer (streamed). With \`limit\`, one page; when more follow, a \`Link: <...>; rel="next"\` header gives the next page (the same \`limit\`, \`after_id\` = the last id of this page). Unknown or repeated parameters are refused.`,
      tags: [r.tag],
      parameters: [{ $ref: '#/components/parameters/Limit' }, { $ref: '#/components/parameters/AfterId' }],
      responses: {
        200: success(`The ${r.noun}s, ascending by id.`, `${r.name}ListEnvelope`, headers([], ['Link'])),
        400: queryRefused(),
        401: responseRef('Unauthorized'),
        403: responseRef('Forbidden'),
        404: responseRef('UnknownRoute'),
        429: responseRef('RateLimited'),
        500: responseRef('ServerError'),
        ...everyOperation(),
      },
    });
    map.set(`POST /${r.path}/create`, {
      operationId: `create${r.name}`,
      summary: `Create a ${r.noun}`,
      description:
        r.path === 'channels'
          ? "Fields not in the schema are refused (unknown_field), and so is each problem of the config, named config.<field>. The answer shows the config's secrets masked, as every answer does."
          : r.duplicate === undefined
            ? "Fields not in the schema are refused (unknown_field); ids of records that are not the user's are invalid_value, naming the field and the id."
            : `Fields not in the schema are refused (unknown_field). On 409 the error carries \`existing_id\`, the ${r.noun} this one duplicates: a client that lost the answer to a create it sent can carry on with that id instead of creating twice.`,
      tags: [r.tag],
      requestBody: {
        description: `The ${r.noun}. Content-Type must be application/json (a charset parameter is allowed).`,
        required: true,
        content: { [JSON_MEDIA]: { schema: ref(`${r.name}Input`) } },
      },
      responses: {
        201: success(
          `The ${r.noun} as stored (targets normalised, defaults filled in).`,
          r.createdEnvelope ?? `${r.name}Envelope`,
        ),
        400: badRequest(
          `The body is not JSON of the right media type, or has invalid fields (every problem is listed in details)${refusedHow(r)}.`,
          [
            errors.invalidContentType(),
            errors.invalidJson(),
            errors.validationFailed(sampleDetails()),
            ...(r.refusals ?? []),
          ],
        ),
        401: responseRef('Unauthorized'),
        403: responseRef('Forbidden'),
        404: responseRef('UnknownRoute'),
        ...(r.duplicate === undefined
          ? {}
          : {
              409: errorResponseObject(
                `An identical ${r.noun} exists already; existing_id names it.`,
                [r.duplicate],
                AFTER_RATE_LIMIT(),
              ),
            }),
        413: responseRef('PayloadTooLarge'),
        429: responseRef('RateLimited'),
        500: responseRef('ServerError'),
        ...everyOperation(),
      },
    });
    if (r.checked)
      map.set(
        `GET /${r.path}/results`,
        pagedRecordOperation(r, {
          operationId: `list${r.name}Results`,
          summary: `The check results of one ${r.noun}, newest first`,
          description: `What the monitoring engine found at each check of one ${r.noun} of the key's user${r.path === 'devices' ? ' (one result per probe that ran)' : ' (one result per zone asked)'}, newest first, one page at a time (\`limit\`, default ${DEFAULT_RESULTS_LIMIT}). When older results follow, a \`Link: <...>; rel="next"\` header gives the next page (the same \`limit\`, \`before_id\` = the last id of this page). A ${r.noun} that does not exist and one of another user get the same 404. Results older than the engine's retention are deleted.`,
          answered: `The ${r.noun}'s results, newest first.`,
          envelope: `${r.name}ResultListEnvelope`,
        }),
      );
    if (r.checked)
      map.set(`POST /${r.path}/check`, {
        operationId: `check${r.name}`,
        summary: `Check one ${r.noun} now`,
        description: `Makes one ${r.noun} of the key's user due at once: a running monitoring engine checks it at its next claim (within seconds), and the results route shows what it found. The answer, 202, is the ${r.noun} as it stands, before that check. At most once a minute per ${r.noun}: sooner is 429 check_too_soon with Retry-After. A disabled ${r.noun} is never checked: 409 record_paused. Takes no body.`,
        tags: [r.tag],
        parameters: [{ $ref: '#/components/parameters/Id' }],
        responses: {
          202: success(`The ${r.noun}, due now.`, `${r.name}Envelope`),
          400: idOnlyQueryRefused(),
          ...refusedForRecord(r),
          409: errorResponseObject(
            `The ${r.noun} is disabled (is_enabled false).`,
            [errors.recordPaused()],
            AFTER_RATE_LIMIT(),
          ),
          429: errorResponseObject(
            `This ${r.noun} was asked to be checked less than a minute ago (check_too_soon), or the key's quota or the address's failed-authentication throttle is spent (rate_limit_exceeded). Nothing was done: ask again after Retry-After seconds.`,
            [
              errors.checkTooSoon(60),
              errors.rateLimited(spentQuota(DEFAULTS.rateLimit), DEFAULTS.rateLimit),
              errors.authThrottled(spentQuota(DEFAULTS.authFailureLimit), DEFAULTS.authFailureLimit),
            ],
            headers(
              ['X-Request-Id', 'Retry-After'],
              ['RateLimit-Policy', 'RateLimit', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'],
            ),
          ),
          500: responseRef('ServerError'),
          ...everyOperation(),
        },
      });
    if (r.path === 'heartbeats')
      map.set(
        'GET /heartbeats/results',
        pagedRecordOperation(r, {
          operationId: 'listHeartbeatPings',
          summary: 'The pings of one heartbeat, newest first',
          description: `Every ping one heartbeat of the key's user received (the last 1,000, within the engine's retention), newest first, one page at a time (\`limit\`, default ${DEFAULT_RESULTS_LIMIT}), paged as results are (\`before_id\`, \`Link: <...>; rel="next"\`). A heartbeat that does not exist and one of another user get the same 404.`,
          answered: 'The pings, newest first.',
          envelope: 'HeartbeatPingListEnvelope',
        }),
      );
    if (r.path === 'webhooks')
      map.set(
        'GET /webhooks/deliveries',
        pagedRecordOperation(r, {
          operationId: 'listWebhookDeliveries',
          summary: 'The delivery attempts of one webhook, newest first',
          description: `Every attempt to deliver an event to one webhook of the key's user: the event, which attempt it was, when it ended, the HTTP status answered, why it failed and how long it took; newest first, one page at a time (\`limit\`, default ${DEFAULT_RESULTS_LIMIT}), paged as results are (\`before_id\`, \`Link: <...>; rel="next"\`). A webhook that does not exist and one of another user get the same 404.`,
          answered: 'The attempts, newest first.',
          envelope: 'WebhookAttemptListEnvelope',
        }),
      );
    if (r.path === 'webhooks')
      map.set('POST /webhooks/test', {
        operationId: 'testWebhook',
        summary: 'Send a webhook a test event now',
        description:
          'Sends one signed `webhook.test` event (`{"type":"webhook.test","timestamp":...,"data":{"webhook_id":N}}`, with a `webhook-id` of its own starting `test_`) to one webhook of the key\'s user at once, under the target policy of deliveries, and answers how that one attempt went: a failed attempt is a 200 whose `delivered` is false. Nothing is retried or stored. Takes no body. A webhook that does not exist and one of another user get the same 404.',
        tags: [r.tag],
        parameters: [{ $ref: '#/components/parameters/Id' }],
        responses: {
          200: success("The attempt's outcome.", 'WebhookTestResultEnvelope'),
          400: idOnlyQueryRefused(),
          ...refusedForRecord(r),
          429: responseRef('RateLimited'),
          500: responseRef('ServerError'),
          503: errorResponseObject(
            'This server sends no test deliveries (an embedding host gave no webhookSender).',
            [errors.webhookTestUnavailable()],
            AFTER_RATE_LIMIT(),
          ),
          ...everyOperation(),
        },
      });
    map.set(`GET /${r.path}/get`, {
      operationId: `get${r.name}`,
      summary: `One ${r.noun}`,
      description: `One ${r.noun} of the key's user, as the list shows it. A ${r.noun} that does not exist and one of another user get the same 404.`,
      tags: [r.tag],
      parameters: [{ $ref: '#/components/parameters/Id' }],
      responses: {
        200: success(`The ${r.noun}.`, `${r.name}Envelope`),
        400: idOnlyQueryRefused(),
        ...refusedForRecord(r),
        429: responseRef('RateLimited'),
        500: responseRef('ServerError'),
        ...everyOperation(),
      },
    });
    map.set(`PATCH /${r.path}/update`, {
      operationId: `update${r.name}`,
      summary: `Change a ${r.noun}`,
      description: `Changes the fields given and no other, all or none. Each is judged as on create and the ${r.noun} that results as a whole; fields the server keeps are read_only_field. An unknown id, or another user's, is 404 whatever the body (its JSON form excepted).${r.duplicate === undefined ? '' : ` A change that makes it equal to another ${r.noun} of the user is 409 with \`existing_id\`.`}${r.checked ? ' `is_enabled: false` pauses it and `true` resumes it (each announced to webhooks); a change of what is checked makes it due at once, and a check in flight under the old settings is never recorded.' : ''}`,
      tags: [r.tag],
      parameters: [{ $ref: '#/components/parameters/Id' }],
      requestBody: {
        description: `The changes. Content-Type must be application/json (a charset parameter is allowed).`,
        required: true,
        content: { [JSON_MEDIA]: { schema: ref(`${r.name}Update`) } },
      },
      responses: {
        200: success(
          `The ${r.noun} as changed.`,
          r.path === 'webhooks' ? 'UpdatedWebhookEnvelope' : `${r.name}Envelope`,
        ),
        400: badRequest(
          `The id is not valid (invalid_id), the body is not JSON of the right media type, or it has invalid fields (every problem is listed in details)${refusedHow(r)}.`,
          [
            errors.invalidId(),
            errors.invalidContentType(),
            errors.invalidJson(),
            errors.validationFailed(sampleDetails()),
            ...(r.refusals ?? []),
          ],
        ),
        ...refusedForRecord(r),
        ...(r.duplicate === undefined
          ? {}
          : {
              409: errorResponseObject(
                `The change would make it equal to another ${r.noun}; existing_id names it.`,
                [r.duplicate],
                AFTER_RATE_LIMIT(),
              ),
            }),
        413: responseRef('PayloadTooLarge'),
        429: responseRef('RateLimited'),
        500: responseRef('ServerError'),
        ...everyOperation(),
      },
    });
    map.set(`DELETE /${r.path}/delete`, {
      operationId: `delete${r.name}`,
      summary: `Delete a ${r.noun}`,
      description: `Deletes one ${r.noun} of the key's user. A ${r.noun} that does not exist and one of another user get the same 404.`,
      tags: [r.tag],
      parameters: [{ $ref: '#/components/parameters/Id' }],
      responses: {
        200: success('Deleted.', 'DeletedEnvelope'),
        400: idOnlyQueryRefused(),
        ...refusedForRecord(r),
        429: responseRef('RateLimited'),
        500: responseRef('ServerError'),
        ...everyOperation(),
      },
    });
  }
  return map;
}
