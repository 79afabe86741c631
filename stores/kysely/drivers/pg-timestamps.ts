import type { CustomTypesConfig } from 'pg';

/** PostgreSQL's `timestamptz`, the type of every timestamp column of the schema. */
const TIMESTAMPTZ_OID = 1184;

/** PostgreSQL's text form of a timestamptz in a UTC session: `2026-11-26 21:28:02.123456+00`. */
const UTC_TEXT = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;

/**
 * A timestamptz's text as the API writes timestamps (`2026-11-26T21:28:02.123Z`), or undefined
 * for any text not in UTC's plain form (another session time zone, a year past 9999, BC,
 * infinity), which pg's own parser then reads. The fraction is cut to milliseconds, as a Date
 * cuts it.
 */
export function isoFromUtcText(text: string): string | undefined {
  const match = UTC_TEXT.exec(text);
  if (match === null) return undefined;
  const fraction =
    match[3] === undefined ? '000' : match[3].length >= 3 ? match[3].slice(0, 3) : match[3].padEnd(3, '0');
  return `${match[1]}T${match[2]}.${fraction}Z`;
}

/**
 * pg's type parsers, except that a timestamptz comes back as the API's text instead of a Date:
 * every record the store reads turned its timestamps into Dates and straight back into that text
 * (rows.ts, toStamp), two parses and an allocation per timestamp, on every create.
 */
export function apiTimestampTypes(base: CustomTypesConfig): CustomTypesConfig {
  // Made once: pg asks for a column's parser on every result it reads, a create's included. The
  // fallback is looked up when it is needed, so a parser set on `base` later still applies.
  const timestamptz = (text: string): unknown =>
    isoFromUtcText(text) ?? (base.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => unknown)(text);
  const getTypeParser = ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMPTZ_OID && format !== 'binary'
      ? timestamptz
      : base.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'];
  return { getTypeParser };
}
