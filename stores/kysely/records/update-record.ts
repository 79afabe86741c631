import { CompiledQuery } from 'kysely';
import type { Kysely } from 'kysely';
import type { ChangeEffect, MonitoredKind, NewMonitoringEvent, PageRequest, Timestamp } from '../../../core/index.ts';
import { eventValues } from '../checks/result-rows.ts';
import { flagFor, stampText } from '../rows.ts';
import type { Database, StoreDialect } from '../schema.ts';
import { sqlOf } from '../drivers/sql-of.ts';

type ChangedTable =
  | 'devices'
  | 'blacklist_monitors'
  | 'webhooks'
  | 'maintenance_windows'
  | 'status_pages'
  | 'status_page_notices'
  | 'channels';

/** One record's change as SQL: compare-and-set on `expect`, then `set`, then the events, at once. */
export interface RowChange {
  table: ChangedTable;
  userId: number;
  id: number;
  /** Column values to write. */
  set: Readonly<Record<string, unknown>>;
  /** Column values the row must still hold, or nothing is written. */
  expect: Readonly<Record<string, unknown>>;
  /** What the change does to the engine's columns (devices and monitors). */
  effect: ChangeEffect;
  at: Timestamp;
  /** For `reschedule`: when the next check is due at the latest. */
  latest?: Timestamp;
  /** Written with the change, in the same transaction; never without it. */
  events: readonly NewMonitoringEvent[];
  kind?: MonitoredKind;
  /** Run in the change's transaction once the row is written (a device's location schedules). */
  follow?: (trx: Kysely<Database>) => Promise<void>;
}

/** A unique index refused the row: PostgreSQL's unique_violation, SQLite's UNIQUE constraint. */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if ('code' in error && error.code === '23505') return true;
  return error.message.includes('UNIQUE constraint failed');
}

const LEASE = 'lease_owner = null, lease_token = null, lease_expires_at = null';

/**
 * The engine's columns after a change (docs/engine.md, "Changing a record"), as SET clauses whose
 * one parameter (`@`) is the change's time, or the latest next check for `reschedule`: a pause
 * drops the schedule and the lease, a resume or a restart makes the record due at once and drops
 * the lease (so a check in flight under the old settings is never written), a device's status
 * moves to `paused` or `pending` (`status_since` only when it moves), and a new interval brings
 * the next check to at most one interval after the last.
 */
function effectClauses(table: ChangedTable, effect: ChangeEffect): string | null {
  if ((table !== 'devices' && table !== 'blacklist_monitors') || effect === 'none') return null;
  if (effect === 'reschedule') return 'next_check_at = case when next_check_at > @ then @ else next_check_at end';
  if (table === 'devices') {
    const status = effect === 'pause' ? 'paused' : 'pending';
    const next = effect === 'pause' ? 'null' : '@';
    return (
      `${LEASE}, next_check_at = ${next}, status = '${status}', consecutive_failures = 0, ` +
      `status_since = case when status <> '${status}' then @ else status_since end`
    );
  }
  if (effect === 'pause') return `${LEASE}, next_check_at = null`;
  // Another target's listings say nothing of this one's.
  const forget = effect === 'restart' ? `, last_status = null, listed_on = '[]', failed_zones = '[]'` : '';
  return `${LEASE}, next_check_at = @${forget}`;
}

/** Statement texts by shape: the same fields and effect make the same text, built once. */
/** A statement's text, and what each of its parameters is, in order. */
interface Statement {
  text: string;
  order: Slot[];
}
type Slot = 'set' | 'at' | 'id' | 'user' | 'expect';
const STATEMENTS = new Map<string, Statement>();
const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

function statementFor(dialect: StoreDialect, change: RowChange): Statement {
  const setNames = Object.keys(change.set);
  const expectNames = Object.keys(change.expect);
  const key = `${dialect} ${change.table} ${change.effect} ${setNames.join(',')} ${expectNames.join(',')}`;
  let statement = STATEMENTS.get(key);
  if (statement !== undefined) return statement;
  let n = 0;
  const order: Slot[] = [];
  const parameter = (what: (typeof order)[number]) => {
    order.push(what);
    n++;
    return sqlOf(dialect).parameter(n);
  };
  const assignments = setNames.map((name) => `${quote(name)} = ${parameter('set')}`);
  const effect = effectClauses(change.table, change.effect);
  // Each `@` is the effect's one value, bound once per place it appears.
  if (effect !== null) assignments.push(effect.replaceAll('@', () => parameter('at')));
  const { same } = sqlOf(dialect);
  const where = [
    `id = ${parameter('id')}`,
    `user_id = ${parameter('user')}`,
    ...expectNames.map((name) => `${quote(name)} ${same} ${parameter('expect')}`),
  ];
  const text = `update ${quote(change.table)} set ${assignments.join(', ')} where ${where.join(' and ')} returning *`;
  statement = { text, order };
  if (STATEMENTS.size < 256) STATEMENTS.set(key, statement);
  return statement;
}

function parametersOf(change: RowChange, order: readonly Slot[]): unknown[] {
  const set = Object.values(change.set);
  const expect = Object.values(change.expect);
  const at = stampText(change.effect === 'reschedule' ? (change.latest ?? change.at) : change.at);
  let s = 0;
  let e = 0;
  return order.map((what) => {
    if (what === 'set') return set[s++];
    if (what === 'expect') return expect[e++];
    if (what === 'at') return at;
    return what === 'id' ? change.id : change.userId;
  });
}

/**
 * Writes a change if the row still holds `expect` (null-safe comparison: `IS` on SQLite, `IS NOT
 * DISTINCT FROM` on PostgreSQL) and answers the row as written; undefined when it did not (gone,
 * another user's, or changed since it was read: the caller tells which). A unique index's refusal
 * is thrown (see isUniqueViolation). With events or `follow`, one transaction; without, one statement, whose
 * text is built once per shape (and prepared once per connection on PostgreSQL).
 */
export async function updateRow<Row>(
  db: Kysely<Database>,
  dialect: StoreDialect,
  change: RowChange,
): Promise<Row | undefined> {
  if (change.events.length === 0 && change.follow === undefined) {
    const { text, parameters } = compiled(dialect, change);
    return (await db.executeQuery<Row>(CompiledQuery.raw(text, parameters))).rows[0];
  }
  return db.transaction().execute((trx) => writeChange<Row>(trx, dialect, change));
}

/**
 * Reads the user's row of `table` and holds it until the change is written, asks `judge` what to
 * write (null: nothing), and writes it with its events and `follow`, all in one transaction.
 * Concurrent writers of the row wait for each other: on PostgreSQL the read takes the row's lock
 * (`for update`), which the engine's writes and other changes of the row wait for; on SQLite the
 * transaction holds the database's write lock from its first statement (`begin immediate`, see
 * drivers/sqlite-transactions.ts). Answers the row as it then stands, undefined when it is not the user's.
 * A unique index's refusal is thrown, as by updateRow.
 */
export async function updateLockedRow<Row>(
  db: Kysely<Database>,
  dialect: StoreDialect,
  table: ChangedTable,
  userId: number,
  id: number,
  judge: (row: Row) => RowChange | null,
): Promise<Row | undefined> {
  return db.transaction().execute(async (trx) => {
    const text = `${ownedRowText(dialect, table)}${sqlOf(dialect).forUpdate}`;
    const row = (await trx.executeQuery<Row>(CompiledQuery.raw(text, [id, userId]))).rows[0];
    if (row === undefined) return undefined;
    const change = judge(row);
    return change === null ? row : writeChange<Row>(trx, dialect, change);
  });
}

function compiled(dialect: StoreDialect, change: RowChange): { text: string; parameters: unknown[] } {
  if (change.effect === 'reschedule' && change.latest === undefined) change = { ...change, effect: 'none' };
  const { text, order } = statementFor(dialect, change);
  return { text, parameters: parametersOf(change, order) };
}

/** The change's statement, then `follow`, then its events, in the transaction `trx`. */
async function writeChange<Row>(
  trx: Kysely<Database>,
  dialect: StoreDialect,
  change: RowChange,
): Promise<Row | undefined> {
  const { text, parameters } = compiled(dialect, change);
  let row = (await trx.executeQuery<Row>(CompiledQuery.raw(text, parameters))).rows[0];
  if (row === undefined) return undefined;
  if (change.follow !== undefined) {
    await change.follow(trx);
    row = await readOwnedRow<Row>(trx, dialect, change.table, change.userId, change.id);
  }
  if (change.events.length === 0) return row;
  await trx
    .insertInto('events')
    .values(
      change.events.map((event) => ({
        ...eventValues(event),
        user_id: change.userId,
        resource_kind: change.kind ?? 'device',
        resource_id: change.id,
      })),
    )
    .execute();
  return row;
}

/** The named columns of a row's values, in that order; names the row does not have are left out. */
export function pickColumns(
  values: Readonly<Record<string, unknown>>,
  names: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) if (Object.hasOwn(values, name)) out[name] = values[name];
  return out;
}

/**
 * A record's create fields as the columns that hold them, under the same names and as
 * `deviceToRow` and `monitorToRow` (rows.ts) write them: a flag as the dialect stores it, a list
 * as JSON text, anything else as it is. Only the fields named are converted, so a change never
 * serialises the rest of the record (its last results, say).
 */
export function fieldColumns(dialect: StoreDialect, record: object, names: readonly string[]): Record<string, unknown> {
  const values = record as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const name of names) {
    if (!Object.hasOwn(values, name)) continue;
    const value = values[name];
    if (typeof value === 'boolean') out[name] = flagFor(dialect, value);
    else if (typeof value === 'object' && value !== null) out[name] = JSON.stringify(value);
    else out[name] = value;
  }
  return out;
}

/**
 * The columns of `names` to write: those whose value `after` changes. A column the row must still
 * hold (`expect`) and that keeps its value is already as it is to be, so writing it would only
 * lengthen the statement and its parameters. With nothing changed, every column of `names` (a
 * statement needs one to set).
 */
export function changedColumns(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
  names: readonly string[],
  expect: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let any = false;
  for (const name of names) {
    if (!Object.hasOwn(after, name)) continue;
    if (Object.hasOwn(expect, name) && before[name] === after[name]) continue;
    out[name] = after[name];
    any = true;
  }
  return any ? out : pickColumns(after, names);
}

/** `select * from <table> where id = ? and user_id = ?`, built once per table and dialect. */
export async function readOwnedRow<Row>(
  db: Kysely<Database>,
  dialect: StoreDialect,
  table: ChangedTable,
  userId: number,
  id: number,
): Promise<Row | undefined> {
  return (await db.executeQuery<Row>(CompiledQuery.raw(ownedRowText(dialect, table), [id, userId]))).rows[0];
}

function ownedRowText(dialect: StoreDialect, table: ChangedTable): string {
  const at = sqlOf(dialect).parameter;
  return `select * from ${quote(table)} where id = ${at(1)} and user_id = ${at(2)}`;
}

/**
 * A page of the user's rows of `table`: those after `page.afterId`, by id, at most `page.limit`
 * (every one when it is not finite: a streamed list). The same text per table, dialect and
 * whether it is limited, so each is prepared once.
 */
export async function listOwnedRows<Row>(
  db: Kysely<Database>,
  dialect: StoreDialect,
  table: ChangedTable,
  userId: number,
  page: PageRequest,
): Promise<Row[]> {
  const at = sqlOf(dialect).parameter;
  const limited = Number.isFinite(page.limit);
  const text = `select * from ${quote(table)} where user_id = ${at(1)} and id > ${at(2)} order by id${limited ? ` limit ${at(3)}` : ''}`;
  const parameters = limited ? [userId, page.afterId, page.limit] : [userId, page.afterId];
  return (await db.executeQuery<Row>(CompiledQuery.raw(text, parameters))).rows;
}
