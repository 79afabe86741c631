/** Small builders shared by the response schemas: references, nullability, typed records. */
import type { JsonSchema } from '@valibot/to-json-schema';

/** Compile-time proof that a list names every member of a union (and nothing else). */
type Exhaustive<Union, List extends readonly Union[]> = [Exclude<Union, List[number]>] extends [never] ? List : never;
export const exhaustive =
  <Union>() =>
  <const List extends readonly Union[]>(list: Exhaustive<Union, List>): List =>
    list;

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
export const described = (description: string, schema: JsonSchema): JsonSchema => ({ description, ...schema });

/** A record's properties, one per field of its TypeScript type: no more, no fewer. */
export function record<T>(description: string, properties: { [K in keyof T]-?: JsonSchema }): JsonSchema {
  return { type: 'object', description, required: Object.keys(properties), properties };
}

export const STRING: JsonSchema = { type: 'string' };
export const BOOLEAN: JsonSchema = { type: 'boolean' };
