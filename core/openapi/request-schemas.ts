/**
 * JSON Schemas of what a client sends, converted from the very valibot schemas that validate the
 * requests, so that the document and the validator cannot disagree about a field, its type or its
 * range. Our schemas use a few constructs that have no JSON Schema equivalent of their own (`check`
 * and `transform` actions); each is translated below, and anything not recognised fails the
 * conversion rather than being described vaguely.
 */
import * as v from 'valibot';
import {
  toJsonSchema,
  type ConversionConfig,
  type JsonSchema,
  type OverrideActionContext,
} from '@valibot/to-json-schema';
import { blacklistMonitorHints, blacklistMonitorSchema } from '../validation/blacklist-monitor-input.ts';
import type { FieldHints } from '../validation/details.ts';
import { deviceHints, deviceSchema } from '../validation/device-input.ts';
import { listQuerySchema, QUERY_INTEGER } from '../validation/list-query.ts';
import { resultsQuerySchema } from '../validation/results-query.ts';

/** The control characters `text()` refuses (C0, DEL, C1), as a JSON Schema (ECMA-262) pattern. */
export const NO_CONTROL_CHARACTERS = '^[^\\u0000-\\u001f\\u007f-\\u009f]*$';

type Requirement = (input: unknown) => boolean;

function requirementOf(action: OverrideActionContext['valibotAction']): Requirement {
  const requirement: unknown = (action as { requirement?: unknown }).requirement;
  if (typeof requirement !== 'function') throw new Error(`a ${action.type} action without a requirement function`);
  return requirement as Requirement;
}

/**
 * The largest length a length check accepts. The limit lives in the check's closure, so it is
 * read the only way it can be: by asking the check itself (a binary search over lengths).
 */
function maxLengthOf(accepts: Requirement): number {
  if (!accepts('')) throw new Error('a too_long check that refuses the empty string');
  let low = 0;
  let high = 1 << 20;
  if (accepts('a'.repeat(high))) throw new Error('a too_long check without a limit below 1 MiB');
  while (high - low > 1) {
    const middle = (low + high) >>> 1;
    if (accepts('a'.repeat(middle))) low = middle;
    else high = middle;
  }
  return low;
}

function fail(message: string): never {
  throw new Error(`OpenAPI conversion: ${message}`);
}

/**
 * Translates the checks and transforms of core/validation/field-schemas.ts. Each check carries its
 * detail code as its message (that is how the validator reports it), which tells which rule it is;
 * the rule is then confirmed by probing the check, so a changed rule breaks the conversion instead
 * of leaving a stale description.
 */
function overrideAction(context: OverrideActionContext): JsonSchema | null {
  const { valibotAction: action, jsonSchema } = context;
  if (action.type === 'check') {
    const accepts = requirementOf(action);
    const message = (action as { message?: unknown }).message;
    if (jsonSchema.type === 'string' && jsonSchema.pattern === QUERY_INTEGER.source && message === 'out_of_range') {
      // The exact range test on a query integer's text; the minValue/maxValue after its transform
      // state the same range, and they are what the document shows.
      return jsonSchema;
    }
    if (jsonSchema.type === 'string' && message === 'too_long') {
      return { ...jsonSchema, maxLength: maxLengthOf(accepts) };
    }
    if (jsonSchema.type === 'string' && message === 'invalid_value') {
      const refusesControls = ['\u0000', '\u001f', '\u007f', '\u009f', 'a\nb'].every((s) => !accepts(s));
      const acceptsText = ['', 'a', 'é ü', 'example.com'].every((s) => accepts(s));
      if (!refusesControls || !acceptsText) fail('a string check that is not the control-character rule');
      // Lone surrogates (also refused) cannot be expressed in JSON Schema and never survive a
      // UTF-8 JSON body anyway.
      return { ...jsonSchema, pattern: NO_CONTROL_CHARACTERS };
    }
    if (message === 'invalid_value' && Array.isArray(jsonSchema.anyOf)) {
      // The int/bool flag of docs/contract.md §4: a union of boolean and number narrowed to true/false/0/1.
      const accepted = [true, false, 0, 1].every((x) => accepts(x));
      const refused = [2, -1, 0.5, '1', null].every((x) => !accepts(x));
      if (!accepted || !refused) fail('a union check that is not the int/bool flag rule');
      return { anyOf: [{ type: 'boolean' }, { type: 'integer', enum: [0, 1] }] };
    }
    if (jsonSchema.type === 'array' && message === 'invalid_value') {
      // A list of distinct names (a device's check_locations).
      if (!accepts(['a', 'b']) || accepts(['a', 'a'])) fail('an array check that is not the distinct-items rule');
      return { ...jsonSchema, uniqueItems: true };
    }
    fail(`a check with message ${String(message)} on ${JSON.stringify(jsonSchema)}`);
  }
  if (action.type === 'transform') {
    // The document describes the wire form, not what the server turns it into.
    if (Array.isArray(jsonSchema.anyOf)) return jsonSchema; // flag → boolean: the input stays as described
    if (jsonSchema.type === 'string' && jsonSchema.pattern === QUERY_INTEGER.source) {
      // A query integer read as a number: OpenAPI describes such a parameter as
      // an integer (query values are always serialised as text). The range actions follow.
      return { type: 'integer' };
    }
    fail(`a transform on ${JSON.stringify(jsonSchema)}`);
  }
  return null;
}

const CONFIG: ConversionConfig = {
  target: 'draft-2020-12',
  // 'output' starts each pipe at its last schema (the picklist of `oneOf`, which carries the
  // enum); the transforms that follow are translated back to the wire form by overrideAction.
  typeMode: 'output',
  errorMode: 'throw',
  overrideAction,
  overrideSchema(context) {
    // The parsers refuse any field the schema does not name (`unknown_field`), which valibot's
    // plain `object` does not say by itself.
    if (context.valibotSchema.type === 'object') return { ...context.jsonSchema, additionalProperties: false };
    return null;
  },
};

/** `anyOf: [{anyOf: [a, b]}, c]` → `anyOf: [a, b, c]`: same meaning, friendlier to generators. */
function flatten(schema: JsonSchema): JsonSchema {
  if (!Array.isArray(schema.anyOf)) return schema;
  const options: JsonSchema[] = [];
  for (const option of schema.anyOf) {
    if (typeof option === 'boolean') fail('a boolean schema inside anyOf');
    const keys = Object.keys(option);
    if (keys.length === 1 && keys[0] === 'anyOf') options.push(...(flatten(option).anyOf as JsonSchema[]));
    else options.push(option);
  }
  return { ...schema, anyOf: options };
}

/** Field descriptions: the validator's own hints (what a valid value looks like), plus defaults. */
function describe(
  schema: v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>,
  hints: FieldHints,
  notes: Readonly<Record<string, string>>,
): JsonSchema {
  const converted = toJsonSchema(schema, CONFIG);
  const properties: Record<string, JsonSchema> = {};
  for (const [name, property] of Object.entries(converted.properties ?? {})) {
    if (typeof property === 'boolean') fail(`a boolean schema for ${name}`);
    const hint = hints[name];
    if (hint === undefined) fail(`no hint for field ${name}`);
    const note = notes[name];
    const description = `${hint[0]!.toUpperCase()}${hint.slice(1)}.${note === undefined ? '' : ` ${note}`}`;
    properties[name] = { description, ...flatten(property) };
  }
  const { $schema: _dialect, ...rest } = converted;
  return { ...rest, properties };
}

/** What docs/contract.md §6.1 says about defaults and applicability: not part of the validator's schema. */
const DEVICE_NOTES: Readonly<Record<string, string>> = {
  target_value:
    'Domains are stored lower-cased and in ASCII (punycode) form, IP addresses in canonical form; targets that are not publicly routable are refused (forbidden_target) unless the server allows private targets.',
  service_type: 'Default web.',
  scheme: 'Web only. Default https.',
  port: 'Default by service: web 80/443 by scheme, ssh 22, smtp 25, smtps 465, submission 587, ftp 21, imap 143, imaps 993, pop3 110, pop3s 995, dns 53, mysql 3306, postgresql 5432, rdp 3389; required for tcp.',
  host_header: 'Web only. Default null.',
  proxy_enabled: 'Web only. Default false.',
  origin_host: 'Web only. Required when proxy_enabled, check_origin_http or check_origin_tls is on. Default null.',
  origin_scheme: "Web only. Default the device's scheme.",
  origin_port: 'Web only. Default by origin_scheme (80 or 443).',
  check_public_http: 'Web only. Default true when scheme is http.',
  check_public_https: 'Web only. Default true when scheme is https.',
  check_public_tls: 'Default true when scheme is https.',
  check_origin_http: 'Web only. Default false.',
  check_origin_tls: 'Web only. Default false.',
  expect_status: 'Web only. Default 200.',
  location: 'Default null.',
  is_enabled: 'Default true.',
  check_interval_s: 'Any service. Default 60.',
  check_locations:
    'Any service. Default null: any one location. A name with no live worker is accepted (its location may start later).',
  quorum: 'Default floor(n / 2) + 1 for n check_locations; null when check_locations is null.',
};

const MONITOR_NOTES: Readonly<Record<string, string>> = {
  target_value: DEVICE_NOTES.target_value!,
  is_enabled: 'Default true.',
  check_interval_s: 'Default 3600.',
  zones:
    "Default null: every zone the installation asks for the target's type (its defaults: zen.spamhaus.org, bl.spamcop.net, bl.mailspike.net, psbl.surriel.com, ix.dnsbl.manitu.net, bl.spameatingmonkey.net for IPs; dbl.spamhaus.org, multi.uribl.com, multi.surbl.org for domains). A zone it does not ask is refused (invalid_value, naming it). Stored lower-case, sorted, without repeats.",
  count_policy_listings:
    'Default false: a listing whose every code is a policy one (Spamhaus PBL) is shown in listings but leaves the status clean.',
};

export function deviceInputSchema(): JsonSchema {
  return {
    ...describe(deviceSchema, deviceHints, DEVICE_NOTES),
    description:
      'A device to create. Only target_type and target_value are required; an optional field given as null means the same as leaving it out. Web-only fields on another service type are refused (not_applicable) unless null or false.',
  };
}

export function blacklistMonitorInputSchema(): JsonSchema {
  return {
    ...describe(blacklistMonitorSchema, blacklistMonitorHints, MONITOR_NOTES),
    description: 'A blacklist monitor to create. An optional field given as null means the same as leaving it out.',
  };
}

/** The results query parameters (`limit`, `before_id`), one schema per parameter. */
export function resultsQueryParameterSchemas(): Record<'limit' | 'before_id', JsonSchema> {
  const converted = toJsonSchema(resultsQuerySchema, CONFIG);
  const property = (name: 'limit' | 'before_id'): JsonSchema => {
    const schema = converted.properties?.[name];
    if (schema === undefined || typeof schema === 'boolean') fail(`no results query parameter ${name}`);
    return schema;
  };
  return { limit: property('limit'), before_id: property('before_id') };
}

/** The list query parameters (`limit`, `after_id`), one schema per parameter. */
export function listQueryParameterSchemas(): Record<'limit' | 'after_id', JsonSchema> {
  const converted = toJsonSchema(listQuerySchema, CONFIG);
  const property = (name: 'limit' | 'after_id'): JsonSchema => {
    const schema = converted.properties?.[name];
    if (schema === undefined || typeof schema === 'boolean') fail(`no list query parameter ${name}`);
    return schema;
  };
  return { limit: property('limit'), after_id: property('after_id') };
}
