import { toTimestamp } from '../clock.ts';
import { errors, type DuplicateCode, type NotFoundCode } from '../http/errors.ts';
import { successResponse, type ApiResponse } from '../http/api-response.ts';
import { readJsonObject } from '../http/read-json-body.ts';
import type { Deleted, Timestamp } from '../records/index.ts';
import type { CreateResult, PageRequest, RecordChange, Store, UpdateResult } from '../store/store.ts';
import { parseIdAlone, refuseQuery } from '../validation/list-query.ts';
import type { RouteContext } from './route-context.ts';
import { listResponse } from './list-response.ts';

/** A PATCH as the store is to write it, and what the answer shows. */
export interface PreparedChange<T, New> {
  change: Omit<RecordChange<T, New>, 'from' | 'reapply'> | null;
  /** Turns the store's record into the answer (a webhook's secret shown only when rotated). */
  answer?: (record: T) => unknown;
}

/** What differs between the API's resources; list, create and delete work alike for all. */
export interface ResourceSpec<T extends { id: number }, New> {
  /** What the record is: the recent records keep each kind apart under it. */
  kind: 'device' | 'blacklist_monitor' | 'webhook' | 'channel';
  /** `options` is the call itself: the target policy and the installation's DNSBL zones. */
  parse(input: Record<string, unknown>, options: RouteContext, createdAt: string): New;
  /**
   * Judges what only the store can tell of a record to write (ids it names that are not the
   * user's) and throws the 400; `body` is the request's, which says what it gives. Called once a
   * create or a change is judged otherwise valid, before anything is written.
   */
  refuse?(call: RouteContext, record: New, body: Record<string, unknown>): Promise<void>;
  /** The record as every answer shows it (a channel's secrets masked); the record itself by default. */
  shown?(record: T): { id: number };
  list(store: Store, userId: number, page: PageRequest): Promise<T[]>;
  create(store: Store, userId: number, record: New): Promise<CreateResult<T>>;
  remove(store: Store, userId: number, id: number): Promise<boolean>;
  get(store: Store, userId: number, id: number): Promise<T | undefined>;
  /**
   * Judges a PATCH body against the record as read (throws the 400) and says what to write:
   * null when the record would not change.
   */
  prepare(record: T, body: Record<string, unknown>, options: RouteContext, at: Timestamp): PreparedChange<T, New>;
  update(store: Store, userId: number, id: number, change: RecordChange<T, New>): Promise<UpdateResult<T>>;
  /** The 409 of a duplicate; absent for a kind without duplicates (channels). */
  duplicate?: DuplicateCode;
  notFound: NotFoundCode;
}

/**
 * The 409 of a record that duplicates `existingId`; a store that answers one for a kind without
 * duplicates is broken.
 */
function duplicateOf(spec: { duplicate?: DuplicateCode; kind: string }, existingId: number): Error {
  if (spec.duplicate === undefined)
    return new Error(`the store answered a duplicate ${spec.kind}, a kind without duplicates`);
  return errors.duplicate(spec.duplicate, existingId);
}

export interface ResourceRoutes {
  list(call: RouteContext): Promise<ApiResponse>;
  create(call: RouteContext): Promise<ApiResponse>;
  remove(call: RouteContext): Promise<ApiResponse>;
  get(call: RouteContext): Promise<ApiResponse>;
  update(call: RouteContext): Promise<ApiResponse>;
}

/**
 * A PATCH judged against a guessed record (RecentRecords), or undefined when the guess cannot
 * settle it and the record must be read: a refusal (the guess may be out of date), no change (the
 * answer must be the record as stored now), or a change that writes events or reads the engine's
 * state (their payload and schedule come from the record as read).
 */
function prepareGuessed<T extends { id: number }, New>(
  spec: ResourceSpec<T, New>,
  guess: T,
  body: Record<string, unknown>,
  options: RouteContext,
  at: Timestamp,
): PreparedChange<T, New> | undefined {
  let prepared: PreparedChange<T, New>;
  try {
    prepared = spec.prepare(guess, body, options, at);
  } catch {
    return undefined;
  }
  const { change } = prepared;
  if (change === null || change.events.length > 0 || change.effect === 'reschedule') return undefined;
  return prepared;
}

export function resourceRoutes<T extends { id: number }, New>(spec: ResourceSpec<T, New>): ResourceRoutes {
  const shown = spec.shown ?? ((record: T): { id: number } => record);
  const list = async (call: RouteContext, page: PageRequest): Promise<{ id: number }[]> => {
    const records = await spec.list(call.store, call.key.user_id, page);
    return spec.shown === undefined ? records : records.map(spec.shown);
  };
  return {
    list: (call) => listResponse(call, (page) => list(call, page)),
    async create(call) {
      refuseQuery(call.url.query);
      const body = await readJsonObject(call.request, call.bodyLimit);
      const record = spec.parse(body, call, toTimestamp(call.now));
      await spec.refuse?.(call, record, body);
      const result = await spec.create(call.store, call.key.user_id, record);
      if ('duplicateOf' in result) throw duplicateOf(spec, result.duplicateOf);
      call.recentRecords.set(spec.kind, call.key.user_id, result.created.id, result.created);
      return successResponse(201, shown(result.created));
    },
    async remove(call) {
      const id = parseIdAlone(call.url.query);
      call.recentRecords.forget(spec.kind, id);
      if (!(await spec.remove(call.store, call.key.user_id, id))) throw errors.notFound(spec.notFound);
      const deleted: Deleted = { id, deleted: true };
      return successResponse(200, deleted);
    },
    async get(call) {
      const id = parseIdAlone(call.url.query);
      const record = await spec.get(call.store, call.key.user_id, id);
      if (record === undefined) throw errors.notFound(spec.notFound);
      call.recentRecords.set(spec.kind, call.key.user_id, id, record);
      return successResponse(200, shown(record));
    },
    async update(call) {
      // The id and the body's form are judged first; its fields are judged against the record.
      const id = parseIdAlone(call.url.query);
      const body = await readJsonObject(call.request, call.bodyLimit);
      const userId = call.key.user_id;
      const at = toTimestamp(call.now);
      const recent = call.recentRecords;
      // The record last answered, when there is one, is a guess the store's compare-and-set
      // checks; every other decision is made on the record as read.
      const guess = recent.get<T>(spec.kind, userId, id);
      const guessed = guess === undefined ? undefined : prepareGuessed(spec, guess, body, call, at);
      const from = guessed === undefined ? await spec.get(call.store, userId, id) : guess!;
      if (from === undefined) throw errors.notFound(spec.notFound);
      const prepared = guessed ?? spec.prepare(from, body, call, at);
      let answer = prepared.answer ?? shown;
      if (prepared.change === null) return successResponse(200, answer(from));
      await spec.refuse?.(call, prepared.change.to, body);
      // Changed by someone else since it was read: the store hands the record as it is now, held
      // until the change is written, and the body is judged again against that.
      const reapply = (current: T) => {
        const again = spec.prepare(current, body, call, at);
        answer = again.answer ?? shown;
        return again.change;
      };
      const result = await spec.update(call.store, userId, id, { ...prepared.change, from, reapply });
      if (result === undefined) {
        recent.forget(spec.kind, id);
        throw errors.notFound(spec.notFound);
      }
      if ('duplicateOf' in result) throw duplicateOf(spec, result.duplicateOf);
      if ('stale' in result) {
        recent.forget(spec.kind, id);
        throw new Error('updating a record: the store answered stale to a change it was to judge again (reapply)');
      }
      recent.set(spec.kind, userId, id, result.updated);
      return successResponse(200, answer(result.updated));
    },
  };
}
