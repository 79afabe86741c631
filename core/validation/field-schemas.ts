import * as v from 'valibot';

/** Control characters (C0, DEL, C1) are refused in every string field. */
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Whether `text` has at most `max` code points. A code point is one or two UTF-16 units, so the
 * string's length settles most cases without walking it: walking every string, 150 kB ones
 * included, was a sixth of the OpenAPI tests' CPU time.
 */
function atMostCodePoints(text: string, max: number): boolean {
  if (text.length <= max) return true;
  if (text.length > 2 * max) return false;
  let count = 0;
  for (const _ of text) if (++count > max) return false;
  return true;
}

/** A string of at most `max` characters, well-formed Unicode, with no control characters. */
export const text = (max: number) =>
  v.pipe(
    v.string('invalid_type'),
    v.check((s) => s.isWellFormed() && !CONTROL.test(s), 'invalid_value'),
    v.check((s) => atMostCodePoints(s, max), 'too_long'),
  );

// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const CONTROL_BUT_LINE_FEED = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

/**
 * Plain text an owner writes for the public (a status page's description, a notice's message):
 * as `text`, but line feeds are kept, since such text has paragraphs (docs/status-pages.md).
 */
export const plainText = (max: number) =>
  v.pipe(
    v.string('invalid_type'),
    v.check((s) => s.isWellFormed() && !CONTROL_BUT_LINE_FEED.test(s), 'invalid_value'),
    v.check((s) => atMostCodePoints(s, max), 'too_long'),
  );

/** A JSON integer in [min, max]. 443.0 is the number 443 once parsed, so it passes; 443.5 does not. */
export const integer = (min: number, max: number) =>
  v.pipe(
    v.number('invalid_type'),
    v.integer('invalid_type'),
    v.minValue(min, 'out_of_range'),
    v.maxValue(max, 'out_of_range'),
  );

/** An int/bool field: exactly true, false, 0 or 1 (docs/contract.md §4), read as a boolean. */
export const flag = () =>
  v.pipe(
    v.union([v.boolean(), v.number()], 'invalid_type'),
    v.check((x) => typeof x === 'boolean' || x === 0 || x === 1, 'invalid_value'),
    v.transform((x) => x === true || x === 1),
  );

export const oneOf = <const T extends readonly string[]>(values: T) =>
  v.pipe(v.string('invalid_type'), v.picklist(values, 'invalid_value'));

/** An optional field, where null means the same as leaving it out. */
export const optional = <S extends v.GenericSchema>(schema: S) => v.optional(v.nullable(schema));
