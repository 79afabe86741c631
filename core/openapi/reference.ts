/**
 * A compact Markdown API reference rendered from the OpenAPI document, for the README
 * (`monitoring-api openapi --markdown`): so the prose reference is drawn from the same source as
 * the machine-readable one instead of being kept in step by hand.
 */
import type { JsonSchema } from '@valibot/to-json-schema';
import type { OpenApiDocument, ParameterObject, Reference, ResponseObject } from './types.ts';

function resolve<T>(document: OpenApiDocument, value: T | Reference): T {
  if (typeof value !== 'object' || value === null || !('$ref' in value)) return value as T;
  let node: unknown = document;
  for (const part of value.$ref.slice(2).split('/')) node = (node as Record<string, unknown>)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  return node as T;
}

/** A schema as a short type expression: `integer 1-65535`, `"domain" | "ip"`, `boolean | 0 | 1`. */
function typeOf(schema: JsonSchema | boolean | undefined): string {
  if (schema === undefined || typeof schema === 'boolean') return 'any';
  if (schema.$ref !== undefined) return schema.$ref.split('/').at(-1)!;
  if (schema.anyOf !== undefined) return schema.anyOf.map((s) => typeOf(s)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum !== undefined) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.type === 'integer' && (schema.minimum !== undefined || schema.maximum !== undefined)) {
    if (schema.maximum === undefined) return `integer ≥ ${schema.minimum}`;
    return `integer ${schema.minimum ?? ''}-${schema.maximum}`;
  }
  if (schema.type === 'string' && schema.maxLength !== undefined) return `string (≤ ${schema.maxLength})`;
  if (schema.type === 'array') return `${typeOf(schema.items as JsonSchema)}[]`;
  return String(schema.type ?? 'object');
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function codesOf(response: ResponseObject): string[] {
  return Object.keys(response.content?.['application/json']?.examples ?? {});
}

function fieldTable(document: OpenApiDocument, name: string): string[] {
  const schema = document.components.schemas[name]!;
  const required = new Set(schema.required ?? []);
  const lines = ['| field | type | required | notes |', '|---|---|---|---|'];
  for (const [field, property] of Object.entries(schema.properties ?? {})) {
    const p = property as JsonSchema;
    lines.push(`| \`${field}\` | ${cell(typeOf(p))} | ${required.has(field) ? 'yes' : ''} | ${cell(p.description ?? '')} |`);
  }
  return lines;
}

export function renderReference(document: OpenApiDocument): string {
  const out: string[] = [];
  out.push(`Base URL: \`${document.servers[0]!.url}\`. Every request: \`Authorization: Bearer <API key>\`.`, '');
  out.push('| method | path | scope | success | errors |', '|---|---|---|---|---|');
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const success = Object.keys(operation.responses).find((status) => status.startsWith('2'))!;
      const errors = Object.entries(operation.responses)
        .filter(([status]) => !status.startsWith('2'))
        .map(([status, response]) => `${status} ${codesOf(resolve(document, response)).join(', ')}`);
      const scope = operation['x-required-scope'] ?? 'any valid key';
      out.push(`| ${method.toUpperCase()} | \`${path}\` | ${scope} | ${success} | ${cell(errors.join('; '))} |`);
    }
  }
  out.push('', 'Query parameters:', '');
  for (const parameter of Object.values(document.components.parameters) as ParameterObject[]) {
    if (parameter.in !== 'query') continue;
    out.push(`- \`${parameter.name}\` (${typeOf(parameter.schema)}${parameter.required === true ? ', required on deletes and results' : ''}): ${parameter.description}`);
  }
  for (const [title, name] of [['Device (create body)', 'DeviceInput'], ['Blacklist monitor (create body)', 'BlacklistMonitorInput'],
    ['Device record', 'Device'], ['Blacklist monitor record', 'BlacklistMonitor'], ['DNSBL result', 'DnsblResult'],
    ['HTTP probe result', 'HttpProbeResult'], ['TLS probe result', 'TlsProbeResult'], ['Service probe result', 'ServiceProbeResult']] as const) {
    out.push('', `${title}:`, '', ...fieldTable(document, name));
  }
  out.push('', 'Response headers:', '');
  for (const [name, header] of Object.entries(document.components.headers)) out.push(`- \`${name}\`: ${header.description}`);
  return `${out.join('\n')}\n`;
}
