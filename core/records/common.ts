/** What the records share: timestamps, targets, and a delete's answer. */

export type TargetType = 'domain' | 'ip';
export type Scheme = 'http' | 'https';

/** A timestamp: ISO 8601 UTC with milliseconds, e.g. `2026-11-22T07:00:00.000Z`. */
export type Timestamp = string;

/** A delete's data. */
export interface Deleted {
  id: number;
  deleted: true;
}
