import type { Selectable } from 'kysely';
import {
  DEVICE_PROBES,
  type CheckResult,
  type NewCheckResult,
  type NewMonitoringEvent,
  type ProbeName,
} from '../../../core/index.ts';
import { stampText, toFlag, toId, toStamp } from '../rows.ts';
import type { CheckResultsTable } from '../schema.ts';

// Conversions of check results and events. The columns every result has are columns; the fields
// of one probe (zone, http_status, tls_valid_to, banner, ...) are one JSON object, so a new probe
// field needs no migration.

/** A result's values, dialect-neutral: the caller binds `ok` as its database wants a flag. */
export interface ResultValues {
  checked_at: string;
  probe: ProbeName;
  ok: boolean;
  response_ms: number | null;
  error: string | null;
  /** JSON object of the probe's own fields. */
  fields: string;
}

export function resultValues(result: NewCheckResult): ResultValues {
  const { checked_at, probe, ok, response_ms, error, ...fields } = result;
  return { checked_at: stampText(checked_at), probe, ok, response_ms, error, fields: JSON.stringify(fields) };
}

function isProbeName(value: string): value is ProbeName {
  return value === 'dnsbl' || (DEVICE_PROBES as readonly string[]).includes(value);
}

function parseFields(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error('column check_results.fields does not hold a JSON object');
  }
  return value as Record<string, unknown>;
}

export function checkResultFromRow(row: Selectable<CheckResultsTable>): CheckResult {
  if (!isProbeName(row.probe)) throw new Error(`column check_results.probe holds an unknown probe: ${row.probe}`);
  // The fields were written from a result of this very probe, so together they are one again.
  return {
    ...parseFields(row.fields),
    id: toId(row.id),
    check_id: toId(row.check_id ?? row.id),
    checked_at: toStamp(row.checked_at),
    probe: row.probe,
    ok: toFlag(row.ok),
    response_ms: row.response_ms,
    error: row.error,
    check_location: row.check_location,
  } as CheckResult;
}

/** An event's values as the outbox keeps them; the owner and the record come from the check. */
export interface EventValues {
  type: NewMonitoringEvent['type'];
  created_at: string;
  /** JSON of the event's data. */
  data: string;
}

export function eventValues(event: NewMonitoringEvent): EventValues {
  return { type: event.type, created_at: stampText(event.created_at), data: JSON.stringify(event.data) };
}
