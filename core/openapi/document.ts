/**
 * The OpenAPI 3.1 description of the v1 API, generated at run time from the code that serves it:
 * operations and scopes from the router's ROUTES, request bodies and query parameters from the
 * valibot schemas, error codes and example messages from the error factories. Runtime-agnostic:
 * nothing here touches the file system or the network.
 */
import type { JsonSchema } from '@valibot/to-json-schema';
import { DEFAULTS, normalizeBasePath } from '../options.ts';
import { ROUTES } from '../routes/router.ts';
import { DEFAULT_RESULTS_LIMIT } from '../validation/results-query.ts';
import { heartbeatSchemas } from './heartbeat-schemas.ts';
import { maintenanceSchemas } from './maintenance-schemas.ts';
import {
  blacklistMonitorInputSchema,
  deviceInputSchema,
  listQueryParameterSchemas,
  resultsQueryParameterSchemas,
} from './request-schemas.ts';
import { componentSchemas } from './response-schemas.ts';
import { webhookSchemas } from './webhook-schemas.ts';
import { channelSchemas } from './channel-schemas.ts';
import { channelDrafts } from './channel-operations.ts';
import { componentHeaders } from './headers.ts';
import type { HttpMethod, OpenApiDocument, OperationObject, ParameterObject, PathItemObject } from './types.ts';
import { responseRef, sharedResponses, unmatchedBadRequest } from './response-objects.ts';
import { drafts } from './operations.ts';
import { reportDrafts, reportParameters } from './report-operations.ts';
import { reportSchemas } from './report-schemas.ts';
import { statusPageDrafts, statusPageParameters } from './status-page-operations.ts';
import { statusPageSchemas } from './status-page-schemas.ts';

export interface OpenApiOptions {
  /** Where the API is mounted, as in MonitoringApiOptions. Default `/v1`. */
  basePath?: string;
  /** An absolute server URL (e.g. `https://monitoring.example.com/v1`). Default: the base path, relative to wherever the document is served. */
  serverUrl?: string;
}

/** The version of this description of the v1 contract (not the package's version). */
export const OPENAPI_DOCUMENT_VERSION = '1.0.0';

const SECURITY_SCHEME = 'bearer';

function parameters(): Record<string, ParameterObject> {
  const list = listQueryParameterSchemas();
  const results = resultsQueryParameterSchemas();
  return {
    Limit: {
      name: 'limit',
      in: 'query',
      required: false,
      description: 'Page size. Without it the whole list is answered.',
      schema: list.limit,
    },
    AfterId: {
      name: 'after_id',
      in: 'query',
      required: false,
      description: 'Cursor: only records with a larger id. Default 0.',
      schema: list.after_id,
    },
    ResultsLimit: {
      name: 'limit',
      in: 'query',
      required: false,
      description: `Page size of a results page. Default ${DEFAULT_RESULTS_LIMIT}.`,
      schema: results.limit,
    },
    BeforeId: {
      name: 'before_id',
      in: 'query',
      required: false,
      description: 'Cursor: only results with a smaller id (older ones). Default: from the newest.',
      schema: results.before_id,
    },
    Id: {
      name: 'id',
      in: 'query',
      required: true,
      description: 'The id of the record, exactly once, in decimal digits.',
      schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    },
    RequestId: {
      name: 'X-Request-Id',
      in: 'header',
      required: false,
      description:
        'Your own request id, echoed in the answer and the logs when it is 1-64 characters of [A-Za-z0-9._-].',
      schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' },
    },
  };
}

const DESCRIPTION = `Devices (monitored endpoints) and DNS-blacklist monitors, per user, behind scoped API keys, and the webhooks and channels that tell of their events.

**Authentication.** Every request carries \`Authorization: Bearer <API key>\`. Keys are issued by the operator (\`monitoring-api keys create\`), never through this API. A key has scopes: \`read\` for the list and results operations, \`write\` for create and delete; \`/me\` needs only a valid key. Each operation states its scope in \`security\` and in \`x-required-scope\`. A key may be restricted to addresses (403 ip_not_allowed).

**Envelopes.** Success: \`{"success": true, "data": ...}\`. Failure: \`{"success": false, "error": {"code", "message"[, "details"][, "existing_id"]}}\`; branch on \`code\`, never on \`message\`. Every answer is \`application/json; charset=utf-8\` with an \`X-Request-Id\`.

**Order of judgement.** Authentication (401), address (403), quota (429), route (404/405), scope (403), input (400/413), then the operation (404/409). So a request that matches no operation can still get 401, 403 or 429: \`x-unmatched-request-responses\` lists what such requests get.

**Rate limits.** Per key, ${DEFAULTS.rateLimit.limit} requests per ${DEFAULTS.rateLimit.windowSeconds} s by default (the operator may change it, also per key). Every answer from the quota check on (see the order above) carries \`RateLimit-Policy\` and \`RateLimit\` (draft-ietf-httpapi-ratelimit-headers-11) and \`RateLimit-Limit\`/\`-Remaining\`/\`-Reset\`; a 429 adds \`Retry-After\`. A 429 was not executed: repeating the same request after \`Retry-After\` seconds is safe, even for a create.

**Lists and pagination.** Lists without \`limit\` answer every record (streamed), so nothing is silently capped. With \`limit\` (1-1000) they answer one page and a \`Link: <...>; rel="next"\` header while more follow; \`after_id\` is the cursor. Check results are always paged, newest first (\`limit\` 1-1000, default ${DEFAULT_RESULTS_LIMIT}), with the same \`Link\` header while older ones follow; \`before_id\` is their cursor.

**Retries and duplicates.** A create that fails with a network error or a 5xx may or may not have happened. Repeating it cannot make a duplicate, because duplicates are refused: read its 409 as success, with \`error.existing_id\` the id of the record that exists.`;

export function createOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const basePath = normalizeBasePath(options.basePath ?? DEFAULTS.basePath);
  const byRoute = drafts();
  for (const [key, draft] of [...reportDrafts(), ...statusPageDrafts(), ...channelDrafts()]) byRoute.set(key, draft);
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
  if (byRoute.size > 0)
    throw new Error(`OpenAPI: described routes that do not exist: ${[...byRoute.keys()].join(', ')}`);

  const schemas: Record<string, JsonSchema> = componentSchemas({
    DeviceInput: deviceInputSchema(),
    BlacklistMonitorInput: blacklistMonitorInputSchema(),
  });
  Object.assign(
    schemas,
    webhookSchemas(),
    channelSchemas(),
    maintenanceSchemas(),
    heartbeatSchemas(),
    reportSchemas(),
    statusPageSchemas(),
  );
  schemas.DeviceUpdate = updateSchema(schemas.DeviceInput!, 'device');
  schemas.BlacklistMonitorUpdate = updateSchema(schemas.BlacklistMonitorInput!, 'blacklist monitor');
  schemas.WebhookUpdate = updateSchema(schemas.WebhookInput!, 'webhook', {
    rotate_secret: {
      description: 'true: replace the signing secret; the answer shows the new one, once.',
      anyOf: [{ type: 'boolean' }, { type: 'integer', enum: [0, 1] }, { type: 'null' }],
    },
  });

  return {
    openapi: '3.1.0',
    info: {
      title: 'Monitoring Service API',
      version: OPENAPI_DOCUMENT_VERSION,
      summary: 'Devices and DNS-blacklist monitors behind scoped API keys (v1).',
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      {
        url: options.serverUrl ?? basePath,
        description: options.serverUrl === undefined ? 'The API on the host that serves this document.' : 'The API.',
      },
    ],
    tags: [
      { name: 'me', description: 'The calling key.' },
      { name: 'devices', description: 'Monitored endpoints: a domain or IP address and the checks to run on it.' },
      { name: 'blacklist-monitors', description: 'Domains and IP addresses watched for DNS blacklisting.' },
      {
        name: 'maintenance-windows',
        description:
          'Planned work: while a window is in force its devices are in maintenance, checked but never announced down or up.',
      },
      {
        name: 'webhooks',
        description:
          'Endpoints that receive status-change events, signed per Standard Webhooks (the secret is shown once, at creation).',
      },
      {
        name: 'heartbeats',
        description:
          'Monitors that wait to be told: a job pings its URL (outside the base path, without a key, as it would Healthchecks) and is down when it is late, fails or runs too long or too short.',
      },
      {
        name: 'channels',
        description:
          'Where people are told of events: email, Slack, Discord, Microsoft Teams, Telegram, PagerDuty and ntfy. Their secrets are write-only, masked in every answer.',
      },
      { name: 'locations', description: 'Where the monitoring engine checks from: its workers, by location.' },
      {
        name: 'status-pages',
        description:
          'Public status pages of chosen records, and the notices written on them: served without a key outside the base path, at /status/<slug> (see docs/status-pages.md).',
      },
      {
        name: 'reports',
        description:
          'Availability, response times, incidents and blacklist listings over a range of time, kept for the report retention (400 days by default).',
      },
    ],
    paths,
    components: {
      schemas,
      responses: sharedResponses(),
      parameters: { ...parameters(), ...reportParameters(), ...statusPageParameters() },
      headers: componentHeaders(),
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key issued by the operator, sent as `Authorization: Bearer <key>`. Scopes (read, write) are listed per operation.',
        },
      },
    },
    'x-unmatched-request-responses': {
      400: unmatchedBadRequest(),
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

/**
 * A PATCH body: any subset of the create's fields (the create's schema without its required
 * list), judged as on create and then as a whole record.
 */
function updateSchema(input: JsonSchema, noun: string, extra: Record<string, JsonSchema> = {}): JsonSchema {
  const { required: _required, description: _description, properties, ...rest } = input;
  return {
    ...rest,
    description: `Changes to a ${noun}: any subset of the create's fields, each judged as on create, the ${noun} that results judged as a whole. null gives an optional field its default back; a required field cannot be null. Fields the server keeps are refused (read_only_field), others unknown_field.`,
    properties: { ...properties, ...extra },
  };
}

/** The document as committed in openapi.json and printed by `monitoring-api openapi`. */
export function serializeOpenApiDocument(document: OpenApiDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
