/**
 * The OpenAPI 3.1 description of the v1 API, generated at run time from the code that serves it:
 * operations and scopes from the router's ROUTES, request bodies and query parameters from the
 * valibot schemas, error codes and example messages from the error factories. Runtime-agnostic:
 * nothing here touches the file system or the network.
 */
import type { JsonSchema } from '@valibot/to-json-schema';
import type { ApiError } from '../http/api-error.ts';
import { errors } from '../http/errors.ts';
import { protocolErrors } from '../http/protocol-errors.ts';
import { DEFAULTS, normalizeBasePath } from '../options.ts';
import type { RateLimitDecision, RateLimitPolicy } from '../rate-limiter.ts';
import { ROUTES } from '../routes/router.ts';
import { DEFAULT_RESULTS_LIMIT } from '../validation/results-query.ts';
import {
  blacklistMonitorInputSchema, deviceInputSchema, listQueryParameterSchemas, resultsQueryParameterSchemas,
} from './request-schemas.ts';
import { componentSchemas, errorEnvelopeFor, exampleBody } from './response-schemas.ts';
import { ref } from './schema-helpers.ts';
import { webhookSchemas } from './webhook-schemas.ts';
import { AFTER_RATE_LIMIT, componentHeaders, headers, RATE_LIMIT_HEADERS } from './headers.ts';
import type {
  HeaderObject, HttpMethod, OpenApiDocument, OperationObject, ParameterObject, PathItemObject, Reference, ResponseObject,
} from './types.ts';

export interface OpenApiOptions {
  /** Where the API is mounted, as in MonitoringApiOptions. Default `/v1`. */
  basePath?: string;
  /** An absolute server URL (e.g. `https://monitoring.example.com/v1`). Default: the base path, relative to wherever the document is served. */
  serverUrl?: string;
}

/** The version of this description of the v1 contract (not the package's version). */
export const OPENAPI_DOCUMENT_VERSION = '1.0.0';

const SECURITY_SCHEME = 'bearer';
const JSON_MEDIA = 'application/json';

// ---- responses -----------------------------------------------------------------------------

function errorResponseObject(description: string, examples: readonly ApiError[], headerSet: Record<string, HeaderObject | Reference>): ResponseObject {
  const codes = [...new Set(examples.map((error) => error.code))];
  return {
    description,
    headers: headerSet,
    content: {
      [JSON_MEDIA]: {
        schema: errorEnvelopeFor(codes),
        examples: Object.fromEntries(examples.map((error) => [error.code, { summary: error.message, value: exampleBody(error) }])),
      },
    },
  };
}

/** A spent quota, for the examples of answers that carry one: only their codes and messages are shown. */
const spentQuota = (policy: RateLimitPolicy): RateLimitDecision => ({ allowed: false, limit: policy.limit, remaining: 0, resetSeconds: policy.windowSeconds });

const sampleDetails = () => [{ field: 'port', code: 'out_of_range' as const, message: 'port must be an integer from 1 to 65535.' }];

/** The unknown-route codes: `unknown_<resource>_route` for each resource, and `unknown_route`. */
function unknownRouteErrors(): ApiError[] {
  const resources = [...new Set(ROUTES.map((route) => route.path.split('/')[1]!))];
  return [...resources.map((resource) => errors.unknownRoute(resource)), errors.unknownRoute(null)];
}

function sharedResponses(): Record<string, ResponseObject> {
  return {
    Unauthorized: errorResponseObject(
      'The Authorization header is missing, or its key is unknown, revoked or expired.',
      [errors.missingApiKey(), errors.invalidApiKey()],
      headers(['X-Request-Id', 'WWW-Authenticate']),
    ),
    Forbidden: errorResponseObject(
      'The key may not be used from this address, or lacks the scope this operation needs. Both answer an authenticated key, so both show its quota; ip_not_allowed does not spend it (the address is judged before the quota). insufficient_scope also carries `WWW-Authenticate` naming the scope needed (RFC 6750 §3.1).',
      [errors.ipNotAllowed(spentQuota(DEFAULTS.rateLimit), DEFAULTS.rateLimit), errors.insufficientScope('write')],
      { ...AFTER_RATE_LIMIT(), ...headers([], ['WWW-Authenticate']) },
    ),
    ForbiddenAddress: errorResponseObject(
      'The key may not be used from this address. The answer shows the key\'s quota without spending it.',
      [errors.ipNotAllowed(spentQuota(DEFAULTS.rateLimit), DEFAULTS.rateLimit)],
      AFTER_RATE_LIMIT(),
    ),
    RateLimited: errorResponseObject(
      'Too many requests with this key, or too many failed authentications from this address. The request was not executed: repeat it after Retry-After seconds.',
      [
        errors.rateLimited(spentQuota(DEFAULTS.rateLimit), DEFAULTS.rateLimit),
        errors.authThrottled(spentQuota(DEFAULTS.authFailureLimit), DEFAULTS.authFailureLimit),
      ],
      headers(['X-Request-Id', 'RateLimit-Policy', 'RateLimit', 'Retry-After'], ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
    ),
    PayloadTooLarge: errorResponseObject(
      `The body is larger than the server's limit (${DEFAULTS.bodyLimit} bytes by default).`,
      [errors.payloadTooLarge(DEFAULTS.bodyLimit)],
      AFTER_RATE_LIMIT(),
    ),
    ServerError: errorResponseObject(
      'The server failed; nothing internal is disclosed. missing_table: the operator has not run the migrations.',
      [errors.serverError(), errors.missingTable()],
      headers(['X-Request-Id'], RATE_LIMIT_HEADERS),
    ),
    UnknownRoute: errorResponseObject(
      'No route of this API has this path: `unknown_<resource>_route` when the first segment names a resource, else unknown_route. On a documented operation: the server URL does not end in the base path the API is mounted at, or the server is of another version.',
      unknownRouteErrors(),
      headers(['X-Request-Id'], RATE_LIMIT_HEADERS),
    ),
    MethodNotAllowed: errorResponseObject(
      'The path exists but not with this method; Allow lists the methods it accepts. On a documented operation: the server at this URL does not serve it with this method (another version, or a proxy that rewrote the method).',
      [errors.methodNotAllowed(['GET'])],
      headers(['X-Request-Id', 'Allow', ...RATE_LIMIT_HEADERS]),
    ),
    BadRequest: errorResponseObject(
      `${PROTOCOL} malformed HTTP, an HTTP/1.1 request without Host, or CONNECT.`,
      [protocolErrors.malformed(), protocolErrors.missingHost(), protocolErrors.connect()],
      headers(['X-Request-Id']),
    ),
    RequestTimeout: errorResponseObject(`${PROTOCOL} the request line, headers or body did not arrive in time.`, [protocolErrors.requestTimeout()], headers(['X-Request-Id'])),
    ExpectationFailed: errorResponseObject(`${PROTOCOL} an Expect header other than 100-continue.`, [protocolErrors.expectationFailed()], headers(['X-Request-Id'])),
    HeadersTooLarge: errorResponseObject(`${PROTOCOL} the request line or headers are over 16 KiB.`, [protocolErrors.headersTooLarge()], headers(['X-Request-Id'])),
  };
}

/** Said of the answers the standalone server gives before the API judges the request. */
const PROTOCOL = 'Answered by the standalone server before the request reaches the API, and the connection closed (a host\'s own server answers these its own way):';

/** The protocol answers a request for any operation can meet, by status, besides the operation's own. */
const PROTOCOL_BAD_REQUEST = () => [protocolErrors.malformed(), protocolErrors.missingHost()];

/**
 * The answers every operation can meet besides its own: a 404 or 405 when the server at this URL
 * does not serve the operation, and the protocol-level answers of the standalone server.
 */
function everyOperation(): Record<string, Reference> {
  return {
    405: responseRef('MethodNotAllowed'),
    408: responseRef('RequestTimeout'),
    417: responseRef('ExpectationFailed'),
    431: responseRef('HeadersTooLarge'),
  };
}

/** An operation's 400: its own input errors, and the protocol's (which carry no quota headers). */
function badRequest(description: string, own: readonly ApiError[]): ResponseObject {
  return errorResponseObject(
    `${description} Or, before the API sees the request: malformed HTTP or no Host header (bad_request, from the standalone server).`,
    [...own, ...PROTOCOL_BAD_REQUEST()],
    headers(['X-Request-Id'], RATE_LIMIT_HEADERS),
  );
}

const responseRef = (name: string): Reference => ({ $ref: `#/components/responses/${name}` });

function success(description: string, envelope: string, extraHeaders: Record<string, HeaderObject | Reference> = {}): ResponseObject {
  return { description, headers: { ...AFTER_RATE_LIMIT(), ...extraHeaders }, content: { [JSON_MEDIA]: { schema: ref(envelope) } } };
}

// ---- operations ----------------------------------------------------------------------------

interface Resource {
  /** Path segment, e.g. `devices`. */
  path: string;
  /** Name in operation ids and schema names, e.g. `Device`. */
  name: string;
  plural: string;
  /** Human noun, e.g. `device`. */
  noun: string;
  tag: string;
  notFound: ApiError;
  duplicate: ApiError;
  /** The create answer's envelope when it differs from `${name}Envelope`. */
  createdEnvelope?: string;
  /** Whether the engine checks it, so it has a results route. */
  checked?: boolean;
}

const RESOURCES: Resource[] = [
  {
    path: 'devices', name: 'Device', plural: 'Devices', noun: 'device', tag: 'devices',
    notFound: errors.notFound('device_not_found'), duplicate: errors.duplicate('duplicate_device', 42),
    checked: true,
  },
  {
    path: 'blacklist-monitors', name: 'BlacklistMonitor', plural: 'BlacklistMonitors', noun: 'blacklist monitor', tag: 'blacklist-monitors',
    notFound: errors.notFound('blacklist_monitor_not_found'), duplicate: errors.duplicate('duplicate_blacklist_monitor', 42),
    checked: true,
  },
  {
    path: 'webhooks', name: 'Webhook', plural: 'Webhooks', noun: 'webhook', tag: 'webhooks',
    notFound: errors.notFound('webhook_not_found'), duplicate: errors.duplicate('duplicate_webhook', 42),
    createdEnvelope: 'CreatedWebhookEnvelope',
  },
];

type Draft = Omit<OperationObject, 'security' | 'x-required-scope' | 'responses'> & {
  responses: Record<string, ResponseObject | Reference>;
};

/** What each route of ROUTES is, keyed `METHOD /path`. A route without an entry fails generation. */
function drafts(): Map<string, Draft> {
  const map = new Map<string, Draft>();
  const queryRefused = () => badRequest('Invalid query parameters.', [errors.validationFailed(sampleDetails())]);
  map.set('GET /me', {
    operationId: 'getMe',
    summary: 'The calling key and its user',
    description: 'Any valid key may call it, whatever its scopes. Takes no query parameters.',
    tags: ['me'],
    responses: {
      200: success('The key and its user.', 'MeEnvelope'),
      400: badRequest('A query parameter was given (this operation takes none).', [errors.validationFailed([{ field: 'x', code: 'unknown_field', message: 'x is not a field of this request.' }])]),
      401: responseRef('Unauthorized'),
      403: responseRef('ForbiddenAddress'),
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
      description: `Fields not in the schema are refused (unknown_field). On 409 the error carries \`existing_id\`, the ${r.noun} this one duplicates: a client that lost the answer to a create it sent can carry on with that id instead of creating twice.`,
      tags: [r.tag],
      requestBody: {
        description: `The ${r.noun}. Content-Type must be application/json (a charset parameter is allowed).`,
        required: true,
        content: { [JSON_MEDIA]: { schema: ref(`${r.name}Input`) } },
      },
      responses: {
        201: success(`The ${r.noun} as stored (targets normalised, defaults filled in).`, r.createdEnvelope ?? `${r.name}Envelope`),
        400: badRequest(
          'The body is not JSON of the right media type, or has invalid fields (every problem is listed in details).',
          [errors.invalidContentType(), errors.invalidJson(), errors.validationFailed(sampleDetails())],
        ),
        401: responseRef('Unauthorized'),
        403: responseRef('Forbidden'),
        404: responseRef('UnknownRoute'),
        409: errorResponseObject(`An identical ${r.noun} exists already; existing_id names it.`, [r.duplicate], AFTER_RATE_LIMIT()),
        413: responseRef('PayloadTooLarge'),
        429: responseRef('RateLimited'),
        500: responseRef('ServerError'),
        ...everyOperation(),
      },
    });
    if (r.checked) map.set(`GET /${r.path}/results`, {
      operationId: `list${r.name}Results`,
      summary: `The check results of one ${r.noun}, newest first`,
      description: `What the monitoring engine found at each check of one ${r.noun} of the key's user${r.path === 'devices' ? ' (one result per probe that ran)' : ' (one result per zone asked)'}, newest first, one page at a time (\`limit\`, default ${DEFAULT_RESULTS_LIMIT}). When older results follow, a \`Link: <...>; rel="next"\` header gives the next page (the same \`limit\`, \`before_id\` = the last id of this page). A ${r.noun} that does not exist and one of another user get the same 404. Results older than the engine's retention are deleted.`,
      tags: [r.tag],
      parameters: [{ $ref: '#/components/parameters/Id' }, { $ref: '#/components/parameters/ResultsLimit' }, { $ref: '#/components/parameters/BeforeId' }],
      responses: {
        200: success(`The ${r.noun}'s results, newest first.`, `${r.name}ResultListEnvelope`, headers([], ['Link'])),
        400: badRequest(
          'id is missing, repeated or not a positive integer (invalid_id), or limit or before_id is invalid, or another query parameter was given (validation_failed).',
          [errors.invalidId(), errors.validationFailed([{ field: 'limit', code: 'out_of_range', message: 'limit must be an integer from 1 to 1000, given once.' }])],
        ),
        401: responseRef('Unauthorized'),
        403: responseRef('Forbidden'),
        404: errorResponseObject(
          `No such ${r.noun} for this user; or (unknown_*_route) the server URL does not end in the API's base path.`,
          [r.notFound, ...unknownRouteErrors()],
          headers(['X-Request-Id'], RATE_LIMIT_HEADERS),
        ),
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
        400: badRequest(
          'id is missing, repeated or not a positive integer (invalid_id), or another query parameter was given (validation_failed).',
          [errors.invalidId(), errors.validationFailed([{ field: 'x', code: 'unknown_field', message: 'x is not a field of this request.' }])],
        ),
        401: responseRef('Unauthorized'),
        403: responseRef('Forbidden'),
        404: errorResponseObject(
          `No such ${r.noun} for this user; or (unknown_*_route) the server URL does not end in the API's base path.`,
          [r.notFound, ...unknownRouteErrors()],
          headers(['X-Request-Id'], RATE_LIMIT_HEADERS),
        ),
        429: responseRef('RateLimited'),
        500: responseRef('ServerError'),
        ...everyOperation(),
      },
    });
  }
  return map;
}

function parameters(): Record<string, ParameterObject> {
  const list = listQueryParameterSchemas();
  const results = resultsQueryParameterSchemas();
  return {
    Limit: {
      name: 'limit', in: 'query', required: false,
      description: 'Page size. Without it the whole list is answered.',
      schema: list.limit,
    },
    AfterId: {
      name: 'after_id', in: 'query', required: false,
      description: 'Cursor: only records with a larger id. Default 0.',
      schema: list.after_id,
    },
    ResultsLimit: {
      name: 'limit', in: 'query', required: false,
      description: `Page size of a results page. Default ${DEFAULT_RESULTS_LIMIT}.`,
      schema: results.limit,
    },
    BeforeId: {
      name: 'before_id', in: 'query', required: false,
      description: 'Cursor: only results with a smaller id (older ones). Default: from the newest.',
      schema: results.before_id,
    },
    Id: {
      name: 'id', in: 'query', required: true,
      description: 'The id of the record, exactly once, in decimal digits.',
      schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    },
    RequestId: {
      name: 'X-Request-Id', in: 'header', required: false,
      description: 'Your own request id, echoed in the answer and the logs when it is 1-64 characters of [A-Za-z0-9._-].',
      schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' },
    },
  };
}

const DESCRIPTION = `Devices (monitored endpoints) and DNS-blacklist monitors, per user, behind scoped API keys.

**Authentication.** Every request carries \`Authorization: Bearer <API key>\`. Keys are issued by the operator (\`monitoring-api keys create\`), never through this API. A key has scopes: \`read\` for the list and results operations, \`write\` for create and delete; \`/me\` needs only a valid key. Each operation states its scope in \`security\` and in \`x-required-scope\`. A key may be restricted to addresses (403 ip_not_allowed).

**Envelopes.** Success: \`{"success": true, "data": ...}\`. Failure: \`{"success": false, "error": {"code", "message"[, "details"][, "existing_id"]}}\`; branch on \`code\`, never on \`message\`. Every answer is \`application/json; charset=utf-8\` with an \`X-Request-Id\`.

**Order of judgement.** Authentication (401), address (403), quota (429), route (404/405), scope (403), input (400/413), then the operation (404/409). So a request that matches no operation can still get 401, 403 or 429: \`x-unmatched-request-responses\` lists what such requests get.

**Rate limits.** Per key, ${DEFAULTS.rateLimit.limit} requests per ${DEFAULTS.rateLimit.windowSeconds} s by default (the operator may change it, also per key). Every answer from the quota check on (see the order above) carries \`RateLimit-Policy\` and \`RateLimit\` (draft-ietf-httpapi-ratelimit-headers-11) and \`RateLimit-Limit\`/\`-Remaining\`/\`-Reset\`; a 429 adds \`Retry-After\`. A 429 was not executed: repeating the same request after \`Retry-After\` seconds is safe, even for a create.

**Lists and pagination.** Lists without \`limit\` answer every record (streamed), so nothing is silently capped. With \`limit\` (1-1000) they answer one page and a \`Link: <...>; rel="next"\` header while more follow; \`after_id\` is the cursor. Check results are always paged, newest first (\`limit\` 1-1000, default ${DEFAULT_RESULTS_LIMIT}), with the same \`Link\` header while older ones follow; \`before_id\` is their cursor.

**Retries and duplicates.** A create that fails with a network error or a 5xx may or may not have happened. Repeating it cannot make a duplicate, because duplicates are refused: read its 409 as success, with \`error.existing_id\` the id of the record that exists.`;

export function createOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const basePath = normalizeBasePath(options.basePath ?? DEFAULTS.basePath);
  const byRoute = drafts();
  const paths: Record<string, PathItemObject> = {};
  for (const route of ROUTES) {
    const key = `${route.method} ${route.path}`;
    const draft = byRoute.get(key);
    if (draft === undefined) throw new Error(`OpenAPI: route ${key} is not described`);
    byRoute.delete(key);
    const operation: OperationObject = {
      operationId: draft.operationId,
      summary: draft.summary,
      description: draft.description,
      tags: draft.tags,
      security: [{ [SECURITY_SCHEME]: route.scope === null ? [] : [route.scope] }],
      'x-required-scope': route.scope,
      parameters: [...(draft.parameters ?? []), { $ref: '#/components/parameters/RequestId' }],
      ...(draft.requestBody === undefined ? {} : { requestBody: draft.requestBody }),
      responses: draft.responses,
    };
    const item = (paths[route.path] ??= {});
    item[route.method.toLowerCase() as HttpMethod] = operation;
  }
  if (byRoute.size > 0) throw new Error(`OpenAPI: described routes that do not exist: ${[...byRoute.keys()].join(', ')}`);

  const schemas: Record<string, JsonSchema> = componentSchemas({
    DeviceInput: deviceInputSchema(),
    BlacklistMonitorInput: blacklistMonitorInputSchema(),
  });
  Object.assign(schemas, webhookSchemas());

  return {
    openapi: '3.1.0',
    info: {
      title: 'Monitoring Service API',
      version: OPENAPI_DOCUMENT_VERSION,
      summary: 'Devices and DNS-blacklist monitors behind scoped API keys (v1).',
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{
      url: options.serverUrl ?? basePath,
      description: options.serverUrl === undefined ? 'The API on the host that serves this document.' : 'The API.',
    }],
    tags: [
      { name: 'me', description: 'The calling key.' },
      { name: 'devices', description: 'Monitored endpoints: a domain or IP address and the checks to run on it.' },
      { name: 'blacklist-monitors', description: 'Domains and IP addresses watched for DNS blacklisting.' },
      { name: 'webhooks', description: 'Endpoints that receive status-change events, signed per Standard Webhooks (the secret is shown once, at creation).' },
    ],
    paths,
    components: {
      schemas,
      responses: sharedResponses(),
      parameters: parameters(),
      headers: componentHeaders(),
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key issued by the operator, sent as `Authorization: Bearer <key>`. Scopes (read, write) are listed per operation.',
        },
      },
    },
    'x-unmatched-request-responses': {
      400: responseRef('BadRequest'),
      401: responseRef('Unauthorized'),
      403: responseRef('ForbiddenAddress'),
      404: responseRef('UnknownRoute'),
      405: responseRef('MethodNotAllowed'),
      408: responseRef('RequestTimeout'),
      417: responseRef('ExpectationFailed'),
      429: responseRef('RateLimited'),
      431: responseRef('HeadersTooLarge'),
      500: responseRef('ServerError'),
    },
  };
}

/** The document as committed in openapi.json and printed by `monitoring-api openapi`. */
export function serializeOpenApiDocument(document: OpenApiDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
