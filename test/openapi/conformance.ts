/**
 * Checks one HTTP exchange (request method and path, response status, headers and body) against
 * the OpenAPI document: the operation is looked up by path and method (or the document's
 * `x-unmatched-request-responses` when none matches), then the status must be documented, the
 * body must match that response's schema, every required header must be present, every
 * documented header present must match its schema, and no header the document knows may appear
 * where it is not documented.
 *
 * The document leaves response objects open so that clients tolerate later additions; here they
 * are closed (`additionalProperties: false`), so the server cannot send a field the document
 * does not name.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import type { FormatsPlugin } from 'ajv-formats';
import {
  createOpenApiDocument,
  type HeaderObject,
  type JsonSchema,
  type OpenApiDocument,
  type OperationObject,
  type PathItemObject,
  type Reference,
  type ResponseObject,
} from '../../core/openapi/index.ts';

// ajv-formats is CommonJS with `exports.default`; depending on the interop the default import is
// the plugin itself or the module object holding it.
const addFormats: FormatsPlugin =
  (formatsModule as unknown as { default?: FormatsPlugin }).default ?? (formatsModule as unknown as FormatsPlugin);

export interface Exchange {
  method: string;
  /** The request URL's pathname, base path included. */
  pathname: string;
  /** The API's base path (`/v1` unless the test mounted it elsewhere). */
  basePath: string;
  status: number;
  /** Response headers, names in lower case. */
  headers: Record<string, string>;
  /** The parsed JSON body. */
  body: unknown;
}

export interface Resolution {
  /** `GET /devices`, or `unmatched` when no operation has this method and path. */
  operation: string;
  response: ResponseObject | undefined;
}

const COMPONENTS_ID = 'urn:monitoring-api:openapi-components';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Rewrites `#/components/schemas/X` to the standalone components schema, and closes objects. */
function prepare(schema: Json, close: boolean): Json {
  if (Array.isArray(schema)) return schema.map((item) => prepare(item, close));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
      out[key] = `${COMPONENTS_ID}#/$defs/${value.slice('#/components/schemas/'.length)}`;
    } else if (key === 'properties' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      // Property names are data, not keywords: recurse into each property's schema only.
      out[key] = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, prepare(property, close)]));
    } else if (key === 'examples' || key === 'const' || key === 'enum' || key === 'default') {
      out[key] = value; // values, not schemas
    } else {
      out[key] = prepare(value, close);
    }
  }
  if (close && 'properties' in out && !('additionalProperties' in out)) out.additionalProperties = false;
  return out;
}

function resolve<T>(document: OpenApiDocument, value: T | Reference): T {
  if (typeof value !== 'object' || value === null || !('$ref' in value)) return value as T;
  const pointer = value.$ref;
  if (!pointer.startsWith('#/')) throw new Error(`external reference ${pointer}`);
  let node: unknown = document;
  for (const part of pointer.slice(2).split('/')) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    if (node === null || typeof node !== 'object' || !(key in node))
      throw new Error(`unresolvable reference ${pointer}`);
    node = (node as Record<string, unknown>)[key];
  }
  return resolve(document, node as T | Reference);
}

const API_JSON = 'application/json; charset=utf-8';

export interface Conformance {
  resolve(method: string, pathname: string, basePath: string, status: number): Resolution;
  /** Every way the exchange departs from the document; empty when it conforms. */
  check(exchange: Exchange): string[];
  /** A schema of the document (as `#/components/schemas/X` or any JSON Schema using such refs) as a validator. */
  validator(schema: JsonSchema, closed?: boolean): ValidateFunction;
}

export function createConformance(document: OpenApiDocument): Conformance {
  const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
  addFormats(ajv);
  const closedDefs = prepare(document.components.schemas as unknown as Json, true);
  const openDefs = prepare(document.components.schemas as unknown as Json, false);
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: closedDefs });
  ajv.addSchema({ $id: `${COMPONENTS_ID}-open`, $defs: openDefs });
  const cache = new Map<string, ValidateFunction>();

  function validator(schema: JsonSchema, closed = true): ValidateFunction {
    const key = `${closed} ${JSON.stringify(schema)}`;
    let validate = cache.get(key);
    if (validate === undefined) {
      let prepared = prepare(schema as unknown as Json, closed);
      if (!closed)
        prepared = JSON.parse(
          JSON.stringify(prepared).replaceAll(`${COMPONENTS_ID}#`, `${COMPONENTS_ID}-open#`),
        ) as Json;
      validate = ajv.compile(prepared as object);
      cache.set(key, validate);
    }
    return validate;
  }

  const knownHeaders = new Map(Object.keys(document.components.headers).map((name) => [name.toLowerCase(), name]));

  function operationFor(method: string, pathname: string, basePath: string): [string, OperationObject] | undefined {
    if (pathname !== basePath && !pathname.startsWith(`${basePath}/`)) return undefined;
    let path = pathname.slice(basePath.length);
    if (path.endsWith('/')) path = path.slice(0, -1); // docs/contract.md §1: one trailing slash is ignored
    const item: PathItemObject | undefined = document.paths[path];
    const operation = item?.[method.toLowerCase() as keyof PathItemObject];
    return operation === undefined ? undefined : [`${method.toUpperCase()} ${path}`, operation];
  }

  function resolveExchange(method: string, pathname: string, basePath: string, status: number): Resolution {
    const found = operationFor(method, pathname, basePath);
    const responses = found === undefined ? document['x-unmatched-request-responses'] : found[1].responses;
    const declared = responses[String(status)];
    return {
      operation: found === undefined ? 'unmatched' : found[0],
      response: declared === undefined ? undefined : resolve<ResponseObject>(document, declared),
    };
  }

  function check(exchange: Exchange): string[] {
    const { operation, response } = resolveExchange(
      exchange.method,
      exchange.pathname,
      exchange.basePath,
      exchange.status,
    );
    const where = `${exchange.method} ${exchange.pathname} → ${exchange.status} (${operation})`;
    if (response === undefined) return [`${where}: status not documented`];
    const problems: string[] = [];
    const media = response.content?.['application/json'];
    if (media === undefined) problems.push(`${where}: no application/json content documented`);
    else {
      const validate = validator(media.schema);
      if (!validate(exchange.body)) {
        problems.push(
          `${where}: body ${JSON.stringify(exchange.body).slice(0, 300)} does not match: ${ajv.errorsText(validate.errors)}`,
        );
      }
    }
    if (exchange.headers['content-type'] !== API_JSON)
      problems.push(`${where}: Content-Type ${exchange.headers['content-type']}`);
    const documented = new Set<string>();
    for (const [name, declared] of Object.entries(response.headers ?? {})) {
      const header = resolve<HeaderObject>(document, declared);
      documented.add(name.toLowerCase());
      const value = exchange.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required === true) problems.push(`${where}: required header ${name} missing`);
        continue;
      }
      const schema = header.schema;
      let instance: unknown = value;
      if (schema.type === 'integer') {
        // Header values are text; an integer header must be plain decimal digits.
        if (!/^-?[0-9]+$/.test(value)) {
          problems.push(`${where}: header ${name}: ${JSON.stringify(value)} is not an integer`);
          continue;
        }
        instance = Number(value);
      }
      const validate = validator(schema, false);
      if (!validate(instance))
        problems.push(`${where}: header ${name}: ${JSON.stringify(value)}: ${ajv.errorsText(validate.errors)}`);
    }
    for (const [lower, name] of knownHeaders) {
      if (exchange.headers[lower] !== undefined && !documented.has(lower)) {
        problems.push(`${where}: header ${name} sent but not documented for this response`);
      }
    }
    return problems;
  }

  return { resolve: resolveExchange, check, validator };
}

const byBasePath = new Map<string, Conformance>();

/**
 * The conformance of the document generated for `basePath`, made once per process: compiling the
 * document's schemas costs far more than checking an answer, and every API test checks hundreds.
 */
export function conformanceFor(basePath: string): Conformance {
  let conformance = byBasePath.get(basePath);
  if (conformance === undefined)
    byBasePath.set(basePath, (conformance = createConformance(createOpenApiDocument({ basePath }))));
  return conformance;
}

/** Lower-cased header names → values, from a fetch Headers. */
export function headerRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
}
