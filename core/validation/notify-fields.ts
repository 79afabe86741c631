/**
 * The fields that say how a device or a blacklist monitor is named and whom its events reach
 * (docs/notifications.md, "Which channels"): `name` and `channel_ids`, the same on both.
 */
import * as v from 'valibot';
import type { ErrorDetail } from '../http/api-error.ts';
import { integer, optional, text } from './field-schemas.ts';
import { MAX_ID } from './list-query.ts';

/** The most channels one record may name. */
export const MAX_CHANNEL_IDS = 100;

export const notifyEntries = {
  name: optional(v.pipe(text(100), v.minLength(1, 'invalid_value'))),
  channel_ids: optional(
    v.pipe(
      v.array(integer(1, MAX_ID), 'invalid_type'),
      v.maxLength(MAX_CHANNEL_IDS, 'out_of_range'),
      v.check((ids) => new Set(ids).size === ids.length, 'invalid_value'),
    ),
  ),
};

export const notifyHints = {
  name: 'text of 1 to 100 characters without control characters',
  channel_ids: `null (every default channel), [] (none) or a list of at most ${MAX_CHANNEL_IDS} distinct ids of your channels`,
} as const;

/** The stored form: a name as given; ids ascending (they were judged distinct). */
export function notifyFields(f: { name?: string | null; channel_ids?: number[] | null }): {
  name: string | null;
  channel_ids: number[] | null;
} {
  return {
    name: f.name ?? null,
    channel_ids: f.channel_ids == null ? null : [...f.channel_ids].sort((a, b) => a - b),
  };
}

/** A 400's details for ids that are not the user's channels: `invalid_value` on `channel_ids`, naming each id. */
export function foreignChannelDetails(foreign: readonly number[]): ErrorDetail[] {
  return foreign.map((id) => ({
    field: 'channel_ids',
    code: 'invalid_value',
    message: `channel_ids: ${id} is not the id of one of your channels.`,
  }));
}
