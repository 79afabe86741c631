import * as v from 'valibot';
import type { ErrorDetail } from '../http/api-error.ts';
import { errors } from '../http/errors.ts';
import { detail, issuesToDetails, unknownFields, type FieldHints } from './details.ts';

/** Every problem of every field, not just the first: one 400 lists them all. */
const EVERY_ISSUE = { abortEarly: false } as const;

/** The field names of each schema, made once rather than for every request. */
const KNOWN = new WeakMap<object, ReadonlySet<string>>();

function knownFields(
  schema: v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>,
): ReadonlySet<string> {
  let known = KNOWN.get(schema);
  if (known === undefined) KNOWN.set(schema, (known = new Set(Object.keys(schema.entries))));
  return known;
}

/**
 * Stage one of a create: every field's own type and range, plus the fields nobody asked for.
 * Returns the typed fields and the details found so far, so that stage two (rules between
 * fields) can add its own before one 400 lists them all.
 */
export function parseFields<S extends v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>>(
  schema: S,
  input: Record<string, unknown>,
  hints: FieldHints,
): { fields: Partial<v.InferOutput<S>>; details: ErrorDetail[] } {
  const details = unknownFields(input, knownFields(schema)).map((name) => detail(name, 'unknown_field', hints));
  const result = v.safeParse(schema, input, EVERY_ISSUE);
  if (result.success) return { fields: result.output, details };
  details.push(...issuesToDetails(result.issues, hints));
  // Keep the fields that were valid, so stage two can still judge them.
  const bad = new Set(details.map((d) => d.field));
  const fields: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(schema.entries)) {
    if (bad.has(name) || !Object.hasOwn(input, name)) continue;
    const one = v.safeParse(entry as v.GenericSchema, input[name]);
    if (one.success) fields[name] = one.output;
  }
  return { fields: fields as Partial<v.InferOutput<S>>, details };
}

export function failIfAny(details: ErrorDetail[]): void {
  if (details.length > 0) throw errors.validationFailed(details);
}
