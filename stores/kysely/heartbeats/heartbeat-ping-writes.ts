import { sql } from 'kysely';
import type { Kysely, RawBuilder, Selectable } from 'kysely';
import type { ReceivedPing } from '../../../core/index.ts';
import { applyPing, PINGS_KEPT, type HeartbeatState, type HeartbeatWrite } from '../../../core/internal.ts';
import { sqlOf } from '../drivers/sql-of.ts';
import { stampText, toId } from '../rows.ts';
import type { Database, StoreDialect } from '../schema.ts';
import { stateFromRow, stateToRow } from './heartbeat-rows.ts';
import type { HeartbeatsTable } from './heartbeat-schema.ts';
import { writeTimelineChange } from './heartbeat-timeline.ts';
import { writeMove } from './heartbeat-writes.ts';

// HeartbeatStore.recordPings (docs/heartbeats.md, "Durability" and "Performance"): a batch of
// pings in one transaction, in as few statements as its moves allow, whatever its size.

type Row = Selectable<HeartbeatsTable>;

/** A heartbeat a batch pinged: its row as read, the state its pings leave, and their writes. */
interface Touched {
  row: Row;
  before: HeartbeatState;
  state: HeartbeatState;
  writes: HeartbeatWrite[];
}

/** The columns of a heartbeat's row its state sets to another value than the row holds (the lease included). */
function changedColumns(row: Row, target: Record<string, unknown>): string[] {
  const held = row as unknown as Record<string, unknown>;
  // A value the driver hands back in another form than the one written (a Date, a bigint)
  // counts as changed: written again, never skipped.
  return Object.keys(target).filter((column) => target[column] !== held[column]);
}

/**
 * The heartbeats whose pings only move their state (neither events nor a timeline change: the
 * most of a busy batch), in one UPDATE whatever their number, their values passed as one JSON
 * array. Only the columns some of them change are set, each heartbeat's own value in each: on
 * SQLite a statement rewrites an index for each of its columns it sets, so setting the token and
 * the owner again would cost a ping two index writes more. `ping_count` is raised by the pings.
 * The rows are held by the caller's lock.
 */
async function writePlainMoves(trx: Kysely<Database>, dialect: StoreDialect, moves: readonly Touched[]): Promise<void> {
  if (moves.length === 0) return;
  const targets = moves.map((move) => stateToRow(dialect, move.state) as Record<string, unknown>);
  const changed = new Set(moves.flatMap((move, i) => changedColumns(move.row, targets[i]!)));
  // In the row's own order: one set of columns is one SQL text (a prepared statement's name).
  const columns = Object.keys(targets[0]!).filter((column) => changed.has(column));
  // Every heartbeat of the statement gets every column set: its own value where it did not change.
  const values = moves.map((move, i) => {
    const value: Record<string, unknown> = { id: move.before.record.id, ping_count: move.writes.length };
    for (const column of columns) value[column] = targets[i]![column];
    return value;
  });
  const json = JSON.stringify(values);
  if (dialect === 'postgres') {
    // Each column keeps its type: the values are read with the table's own row type. The ids
    // again as an array: the planner guesses a hundred rows of any set-returning function and,
    // joining on that alone, reads the whole table in a hash join rather than a row by its key.
    const set = columns.map((column) => sql`${sql.ref(column)} = v.${sql.ref(column)}`);
    const ids = moves.map((move) => move.before.record.id);
    await sql`update heartbeats h set ${sql.join([...set, sql`ping_count = h.ping_count + v.ping_count`])}
      from jsonb_populate_recordset(null::heartbeats, ${json}::jsonb) v
      where h.id = any(${ids}::bigint[]) and h.id = v.id`.execute(trx);
    return;
  }
  const field = (name: string): RawBuilder<unknown> => sql`json_extract(v.value, ${`$.${name}`})`;
  const set = columns.map((column) => sql`${sql.ref(column)} = ${field(column)}`);
  await sql`update heartbeats set ${sql.join([...set, sql`ping_count = ping_count + ${field('ping_count')}`])}
    from json_each(${json}) v where heartbeats.id = ${field('id')}`.execute(trx);
}

/** The columns of a ping a batch writes (the id is the table's). */
const PING_COLUMNS = [
  'heartbeat_id',
  'kind',
  'exit_status',
  'received_at',
  'duration_ms',
  'remote_addr',
  'user_agent',
  'body',
  'rid',
] as const;

/** The pings, in one INSERT whose rows take their ids in the order given (a heartbeat's pings list in that order). */
async function insertPings(trx: Kysely<Database>, dialect: StoreDialect, kept: readonly Record<string, unknown>[]) {
  if (kept.length === 0) return;
  const json = JSON.stringify(kept);
  const columns = sql.raw(PING_COLUMNS.join(', '));
  if (dialect === 'postgres') {
    await sql`insert into heartbeat_pings (${columns})
      select ${columns} from rows from (jsonb_populate_recordset(null::heartbeat_pings, ${json}::jsonb))
        with ordinality as p order by p.ordinality`.execute(trx);
    return;
  }
  const fields = sql.join(PING_COLUMNS.map((name) => sql`json_extract(p.value, ${`$.${name}`})`));
  await sql`insert into heartbeat_pings (${columns}) select ${fields} from json_each(${json}) p order by p.key`.execute(
    trx,
  );
}

/**
 * Whether a heartbeat's pings are trimmed to the last PINGS_KEPT in this batch: when its count of
 * pings passes one of every TRIM_EVERY beyond them. Trimming finds the oldest to keep by walking
 * the heartbeat's newest PINGS_KEPT index entries; done at each ping, that walk and a delete
 * would be paid by every ping of a heartbeat older than its first thousand. Lists never show
 * more than the last PINGS_KEPT (heartbeat-store.ts), so those not yet trimmed are never seen.
 */
function trimDue(pingCount: number, pinged: number): boolean {
  const after = pingCount + pinged;
  return after > PINGS_KEPT && Math.floor(after / TRIM_EVERY) > Math.floor(pingCount / TRIM_EVERY);
}

/** Pings beyond PINGS_KEPT a heartbeat may hold until its next trim. */
const TRIM_EVERY = 100;

/**
 * The id of the oldest of a heartbeat's last PINGS_KEPT pings (null while it has fewer): what a
 * trim keeps from and a list shows from. A walk of that many entries of its index.
 */
export const oldestKeptPing = (heartbeatId: RawBuilder<unknown> | number): RawBuilder<number | null> =>
  sql`(select k.id from heartbeat_pings k where k.heartbeat_id = ${heartbeatId}
    order by k.id desc limit 1 offset ${PINGS_KEPT - 1})`;

/** The pings of `ids` beyond their last PINGS_KEPT deleted, in one statement. */
async function trimPings(trx: Kysely<Database>, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  // The oldest id each heartbeat keeps is found once (materialized), not once per ping it holds.
  await sql`with kept as materialized (
      select h.id as heartbeat_id, ${oldestKeptPing(sql.ref('h.id'))} as oldest
      from heartbeats h where h.id in (${sql.join(ids)}))
    delete from heartbeat_pings where id in (select p.id from kept
      join heartbeat_pings p on p.heartbeat_id = kept.heartbeat_id and p.id < kept.oldest)`.execute(trx);
}

/**
 * The rows of `tokens`, held until the transaction ends (PostgreSQL: in id order, so two batches
 * never deadlock). The tokens go as one parameter: one SQL text whatever the batch's size.
 */
async function lockedByToken(trx: Kysely<Database>, dialect: StoreDialect, tokens: string[]): Promise<Row[]> {
  const listed =
    dialect === 'postgres'
      ? sql`ping_token = any(${tokens}::text[])`
      : sql`ping_token in (select value from json_each(${JSON.stringify(tokens)}))`;
  const { rows } = await sql<Row>`select * from heartbeats where ${listed}
    order by id${sql.raw(sqlOf(dialect).forUpdate)}`.execute(trx);
  return rows;
}

/**
 * HeartbeatStore.recordPings in one transaction: each heartbeat's pings applied in order to its
 * state, its row written once with the state they leave, their events and timeline in order, the
 * pings inserted, and those beyond the last 1,000 deleted when a trim is due (`trimDue`).
 */
export async function recordPings(
  db: Kysely<Database>,
  dialect: StoreDialect,
  pings: readonly ReceivedPing[],
): Promise<{ found: boolean[]; changed: boolean }> {
  if (pings.length === 0) return { found: [], changed: false };
  return db.transaction().execute(async (trx) => {
    const rows = await lockedByToken(trx, dialect, [...new Set(pings.map((ping) => ping.ping_token))]);
    const byToken = new Map(rows.map((row) => [row.ping_token, row]));
    const touched = new Map<number, Touched>();
    const kept: Record<string, unknown>[] = [];
    const found = pings.map((received) => {
      const row = byToken.get(received.ping_token);
      if (row === undefined) return false;
      const id = toId(row.id);
      let entry = touched.get(id);
      if (entry === undefined) {
        const before = stateFromRow(row);
        touched.set(id, (entry = { row, before, state: before, writes: [] }));
      }
      const effect = applyPing(entry.state, received);
      entry.state = effect.state;
      entry.writes.push(effect);
      kept.push({ heartbeat_id: id, ...effect.ping, received_at: stampText(effect.ping.received_at) });
      return true;
    });
    const plain = [...touched.values()].filter(({ writes }) =>
      writes.every((write) => write.events.length === 0 && write.timeline === null),
    );
    await writePlainMoves(trx, dialect, plain);
    let changed = false;
    const written = new Set(plain);
    for (const [id, entry] of touched) {
      if (written.has(entry)) continue;
      const { before, state, writes } = entry;
      const events = writes.flatMap((write) => write.events);
      await writeMove(trx, dialect, { state, events, timeline: null }, { pings: writes.length });
      for (const write of writes) {
        if (write.timeline === null) continue;
        changed = true;
        await writeTimelineChange(trx, before.user_id, id, write.timeline);
      }
    }
    await insertPings(trx, dialect, kept);
    await trimPings(
      trx,
      [...touched].filter(([, { row, writes }]) => trimDue(Number(row.ping_count), writes.length)).map(([id]) => id),
    );
    return { found, changed };
  });
}
