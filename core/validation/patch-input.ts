import * as v from 'valibot';
import type { ErrorDetail } from '../http/api-error.ts';
import { ApiError } from '../http/api-error.ts';
import { detail, issuesToDetails, type FieldHints } from './details.ts';
import { failIfAny } from './parse-fields.ts';

type ObjectSchema = v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>;

/** Every problem of every field, as on create. */
const EVERY_ISSUE = { abortEarly: false } as const;

/** Each create schema's partial form (every field optional, none nullable that was not), made once. */
const PARTIAL = new WeakMap<ObjectSchema, v.GenericSchema>();

function partialOf(schema: ObjectSchema): v.GenericSchema {
  let partial = PARTIAL.get(schema);
  if (partial === undefined) PARTIAL.set(schema, (partial = v.partial(schema)));
  return partial;
}

/** How a PATCH of one kind of record is judged: the create's own schema and rules, applied to the record as changed. */
export interface PatchRules<T extends object, New> {
  /** The create's schema: a PATCH may give any subset of its fields, each judged as on create. */
  schema: ObjectSchema;
  hints: FieldHints;
  /** The create's parser: judges the record as changed as a whole (rules between fields, targets). */
  parse(input: Record<string, unknown>): New;
  /**
   * Fields of the record a create derives from others (a default port, say) that, given the
   * body, are to be derived again rather than kept: changing a device's scheme moves a port that
   * was the old scheme's default to the new one's.
   */
  rederive?(record: T, body: Record<string, unknown>): Iterable<string>;
  /** Fields a PATCH may name besides the create's (a webhook's `rotate_secret`), each optional. */
  extra?: ObjectSchema;
  /** Fields the record does not show that a PATCH may still not set (a webhook's `secret`). */
  hidden?: readonly string[];
}

/**
 * Judges a PATCH body against the record it changes (docs/contract.md §6.9) and
 * answers the record as it is to be, or throws one 400 listing every problem: a field the server
 * keeps is `read_only_field`, any other field the create does not take is `unknown_field`, each
 * given field is judged as on create (a required one cannot be null), and the record that results
 * must be valid as a whole, as a create of it would be. `null` gives an optional field its default.
 */
export function parsePatch<T extends object, New>(
  rules: PatchRules<T, New>,
  record: T,
  body: Record<string, unknown>,
): New {
  const entries = rules.schema.entries;
  const details: ErrorDetail[] = [];
  for (const name of Object.keys(body)) {
    if (Object.hasOwn(entries, name)) continue;
    if (rules.extra !== undefined && Object.hasOwn(rules.extra.entries, name)) continue;
    const readOnly = Object.hasOwn(record, name) || (rules.hidden?.includes(name) ?? false);
    details.push(detail(name, readOnly ? 'read_only_field' : 'unknown_field', rules.hints));
  }
  // Each given field alone, as the create's schema judges it. A body whose fields are all known
  // and none null is judged whole by the create's parser below, which sees every one of them as
  // given: then this pass could find nothing more, and is left to a body that fails there.
  const judgeAlone = (): void => {
    const alone = v.safeParse(partialOf(rules.schema), body, EVERY_ISSUE);
    if (!alone.success) details.push(...issuesToDetails(alone.issues, rules.hints));
    if (rules.extra !== undefined) {
      const extra = v.safeParse(rules.extra, body, EVERY_ISSUE);
      if (!extra.success) details.push(...issuesToDetails(extra.issues, rules.hints));
    }
  };
  const plain = details.length === 0 && rules.extra === undefined && !Object.values(body).includes(null);
  if (!plain) judgeAlone();
  const bad = new Set(details.map((d) => d.field));

  // The create's input for the record as changed: the record's create fields, each replaced by the
  // body's when given (a field found bad above keeps the record's value, so that the whole-record
  // rules still judge the rest), null dropping it back to its default.
  const again = new Set(rules.rederive?.(record, body) ?? []);
  const stored = record as Record<string, unknown>;
  const input: Record<string, unknown> = {};
  for (const name of Object.keys(entries)) {
    if (Object.hasOwn(body, name) && !bad.has(name)) {
      if (body[name] !== null) input[name] = body[name];
    } else if (!again.has(name) && stored[name] !== null && stored[name] !== undefined) {
      input[name] = stored[name];
    }
  }
  try {
    const parsed = rules.parse(input);
    failIfAny(details);
    return parsed;
  } catch (error) {
    if (!(error instanceof ApiError) || error.details === undefined) throw error;
    if (plain) {
      // The fields' own problems first, as the slow path finds them; then the whole record's.
      judgeAlone();
      const alone = new Set(details.map((d) => d.field));
      for (const found of error.details) if (!alone.has(found.field)) details.push(found);
      failIfAny(details);
    }
    for (const found of error.details) if (!bad.has(found.field)) details.push(found);
    failIfAny(details);
    throw error;
  }
}
