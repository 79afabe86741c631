import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Kysely, Selectable } from 'kysely';
import {
  EVENT_TYPES,
  type ClaimedDelivery,
  type CreatedWebhook,
  type CreateResult,
  type DeliveryClaimRequest,
  type DeliveryLease,
  type DeliveryOutcome,
  type EventData,
  type EventType,
  type NewWebhook,
  type PageRequest,
  type ResultsPage,
  type RecordChange,
  type Timestamp,
  type UpdateResult,
  type Webhook,
  type WebhookAttempt,
  type WebhookEndpoint,
  type WebhookChange,
  type WebhookStore,
} from '../../../core/index.ts';
import { applyChange } from '../records/apply-change.ts';
import { listOwnedRows, readOwnedRow } from '../records/update-record.ts';
import { stampText, toId, toStamp } from '../rows.ts';
import { deleteWebhookAttemptsBefore, listWebhookAttempts } from './webhook-attempts.ts';
import type { Database, DbInteger, StoreDialect } from '../schema.ts';
import type { WebhooksTable } from './webhook-tables.ts';
import { sqlOf } from '../drivers/sql-of.ts';
import { fanOutBatch } from '../event-fanout.ts';

const WEBHOOK_FANOUT = { markers: 'webhook_event_fanouts', floor: 'webhook_fanout_floor' } as const;

function parseEvents(text: string): EventType[] {
  const value: unknown = JSON.parse(text);
  const known = EVENT_TYPES as readonly unknown[];
  if (!Array.isArray(value) || !value.every((x) => known.includes(x)))
    throw new Error('column webhooks.events holds an unknown event type');
  return value as EventType[];
}

function webhookFromRow(row: Selectable<WebhooksTable>): CreatedWebhook {
  return {
    id: toId(row.id),
    url: row.url,
    events: parseEvents(row.events),
    is_enabled: typeof row.is_enabled === 'boolean' ? row.is_enabled : row.is_enabled !== 0,
    created_at: toStamp(row.created_at),
    last_delivery_at: row.last_delivery_at === null ? null : toStamp(row.last_delivery_at),
    last_delivery_status: row.last_delivery_status,
    last_delivery_error: row.last_delivery_error,
    failing_since: row.failing_since === null ? null : toStamp(row.failing_since),
    secret: row.secret,
  };
}

function withoutSecret({ secret: _secret, ...webhook }: CreatedWebhook): Webhook {
  return webhook;
}

/** The webhooks part of `KyselyStore`, on PostgreSQL and SQLite alike. */
export class KyselyWebhooks implements WebhookStore {
  private readonly db: Kysely<Database>;
  private readonly dialect: StoreDialect;
  constructor(db: Kysely<Database>, dialect: StoreDialect) {
    this.db = db;
    this.dialect = dialect;
  }

  #flag(value: boolean): boolean | number {
    return sqlOf(this.dialect).flag(value);
  }

  /** A timestamp parameter where PostgreSQL cannot infer the type from a column (a select list). */
  #stamp(value: Timestamp) {
    return sqlOf(this.dialect).stamp(stampText(value));
  }

  async createWebhook(userId: number, webhook: NewWebhook): Promise<CreateResult<CreatedWebhook>> {
    const values = {
      user_id: userId,
      url: webhook.url,
      events: JSON.stringify(webhook.events),
      is_enabled: this.#flag(webhook.is_enabled),
      secret: webhook.secret,
      created_at: stampText(webhook.created_at),
    };
    // As for devices: the unique index decides; a holder deleted in between makes us try again.
    for (let attempt = 0; attempt < 5; attempt++) {
      const row = await this.db
        .insertInto('webhooks')
        .values(values)
        .onConflict((oc) => oc.doNothing())
        .returningAll()
        .executeTakeFirst();
      if (row) return { created: webhookFromRow(row) };
      const existing = await this.db
        .selectFrom('webhooks')
        .select('id')
        .where('user_id', '=', userId)
        .where('url', '=', webhook.url)
        .executeTakeFirst();
      if (existing) return { duplicateOf: toId(existing.id) };
    }
    throw new Error('creating a webhook: the conflicting record kept disappearing; giving up');
  }

  async listWebhooks(userId: number, page: PageRequest): Promise<Webhook[]> {
    const rows = await listOwnedRows<Selectable<WebhooksTable>>(this.db, this.dialect, 'webhooks', userId, page);
    return rows.map((row) => withoutSecret(webhookFromRow(row)));
  }

  async getWebhook(userId: number, id: number): Promise<Webhook | undefined> {
    const row = await readOwnedRow<Selectable<WebhooksTable>>(this.db, this.dialect, 'webhooks', userId, id);
    return row && withoutSecret(webhookFromRow(row));
  }

  /** A change as for devices (records/apply-change.ts); a given secret replaces the old. */
  async updateWebhook(
    userId: number,
    id: number,
    change: RecordChange<Webhook, WebhookChange>,
  ): Promise<UpdateResult<CreatedWebhook>> {
    const columns = (webhook: Omit<Webhook, 'id' | 'created_at' | 'last_delivery_at' | 'last_delivery_status'>) => ({
      url: webhook.url,
      events: JSON.stringify(webhook.events),
      is_enabled: this.#flag(webhook.is_enabled),
    });
    return applyChange(
      this.db,
      this.dialect,
      {
        rowChange: (c: RecordChange<Webhook, WebhookChange>) => ({
          table: 'webhooks',
          userId,
          id,
          set: { ...columns(c.to), ...(c.to.secret === undefined ? {} : { secret: c.to.secret }) },
          expect: columns(c.from),
          effect: 'none',
          at: c.at,
          events: [],
        }),
        judged: (row: Selectable<WebhooksTable>) => withoutSecret(webhookFromRow(row)),
        answered: webhookFromRow,
        findDuplicate: (to) =>
          this.db
            .selectFrom('webhooks')
            .select('id')
            .where('user_id', '=', userId)
            .where('url', '=', to.url)
            .executeTakeFirst(),
      },
      change,
    );
  }

  async deleteWebhook(userId: number, id: number): Promise<boolean> {
    const result = await this.db
      .deleteFrom('webhooks')
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  listWebhookAttempts(userId: number, id: number, page: ResultsPage): Promise<WebhookAttempt[] | undefined> {
    return listWebhookAttempts(this.db, userId, id, page);
  }

  deleteWebhookAttemptsBefore(before: Timestamp, limit: number): Promise<number> {
    return deleteWebhookAttemptsBefore(this.db, this.dialect, before, limit);
  }

  async webhookWithSecret(userId: number, id: number): Promise<WebhookEndpoint | undefined> {
    const row = await this.db
      .selectFrom('webhooks')
      .select(['id', 'url', 'secret'])
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row === undefined ? undefined : { id: toId(row.id), url: row.url, secret: row.secret };
  }

  fanOutEvents(now: Timestamp, limit: number): Promise<number> {
    return this.db
      .transaction()
      .execute((trx) =>
        fanOutBatch(trx, this.dialect, WEBHOOK_FANOUT, now, limit, (ids) => this.#expand(trx, ids, now)),
      );
  }

  /** Deliveries for these events: matching is done here, the events and webhooks are few. */
  async #expand(trx: Kysely<Database>, eventIds: number[], now: Timestamp): Promise<void> {
    const events = await trx
      .selectFrom('events')
      .select(['id', 'user_id', 'type', 'created_at'])
      .where('id', 'in', eventIds)
      .execute();
    const users = [...new Set(events.map((e) => toId(e.user_id)))];
    const hooks = (
      await trx
        .selectFrom('webhooks')
        .selectAll()
        .where('user_id', 'in', users)
        .where('is_enabled', '=', this.#flag(true))
        .execute()
    ).map((row) => ({ userId: toId(row.user_id), hook: webhookFromRow(row) }));
    const rows = [];
    for (const event of events) {
      const at = Date.parse(toStamp(event.created_at));
      for (const { userId, hook } of hooks) {
        if (userId !== toId(event.user_id) || !hook.events.includes(event.type as EventType)) continue;
        if (Date.parse(hook.created_at) > at) continue;
        rows.push({
          event_id: toId(event.id),
          webhook_id: hook.id,
          attempts: 0,
          next_attempt_at: stampText(now),
          status: 'pending' as const,
        });
      }
    }
    for (let start = 0; start < rows.length; start += 500) {
      await trx
        .insertInto('webhook_deliveries')
        .values(rows.slice(start, start + 500))
        .onConflict((oc) => oc.columns(['webhook_id', 'event_id']).doNothing())
        .execute();
    }
  }

  async claimDeliveries(claim: DeliveryClaimRequest): Promise<ClaimedDelivery[]> {
    const now = stampText(claim.now);
    const token = randomUUID();
    const lock = sql.raw(sqlOf(this.dialect).skipLocked('d'));
    // One statement, so SQLite takes its write lock once and PostgreSQL's SKIP LOCKED keeps two
    // workers off the same row. An endpoint's head is its pending delivery of the lowest event.
    const claimed = await sql<{ id: DbInteger; event_id: DbInteger; webhook_id: DbInteger; attempts: number }>`
      update webhook_deliveries set lease_token = ${token}, lease_owner = ${claim.owner},
        lease_expires_at = ${stampText(claim.leaseUntil)}
      where id in (
        select d.id from webhook_deliveries d join webhooks w on w.id = d.webhook_id
        where d.status = 'pending' and w.is_enabled = ${this.#flag(true)} and d.next_attempt_at <= ${now}
          and (d.lease_expires_at is null or d.lease_expires_at <= ${now})
          and not exists (select 1 from webhook_deliveries p
            where p.webhook_id = d.webhook_id and p.status = 'pending' and p.event_id < d.event_id)
        order by d.next_attempt_at, d.id limit ${claim.limit} ${lock})
      returning id, event_id, webhook_id, attempts`.execute(this.db);
    if (claimed.rows.length === 0) return [];
    const hooks = new Map(
      (
        await this.db
          .selectFrom('webhooks')
          .select(['id', 'url', 'secret'])
          .where(
            'id',
            'in',
            claimed.rows.map((r) => toId(r.webhook_id)),
          )
          .execute()
      ).map((h) => [toId(h.id), h]),
    );
    const events = new Map(
      (
        await this.db
          .selectFrom('events')
          .select(['id', 'type', 'created_at', 'data'])
          .where(
            'id',
            'in',
            claimed.rows.map((r) => toId(r.event_id)),
          )
          .execute()
      ).map((e) => [toId(e.id), e]),
    );
    return claimed.rows.flatMap((row) => {
      const hook = hooks.get(toId(row.webhook_id));
      const event = events.get(toId(row.event_id));
      // Deleted between the claim and these reads: its delivery went with it.
      if (hook === undefined || event === undefined) return [];
      return [
        {
          lease: { id: toId(row.id), token, owner: claim.owner, expires_at: stampText(claim.leaseUntil) },
          attempts: Number(row.attempts),
          webhook: { id: toId(hook.id), url: hook.url, secret: hook.secret },
          event: {
            id: toId(event.id),
            type: event.type as EventType,
            created_at: toStamp(event.created_at),
            data: JSON.parse(event.data) as EventData,
          },
        },
      ];
    });
  }

  recordDeliveryAttempt(lease: DeliveryLease, outcome: DeliveryOutcome): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const at = stampText(outcome.attempted_at);
      const row = await trx
        .updateTable('webhook_deliveries')
        .set((eb) => ({
          attempts: eb('attempts', '+', 1),
          status: outcome.state,
          ...(outcome.next_attempt_at === null ? {} : { next_attempt_at: stampText(outcome.next_attempt_at) }),
          lease_token: null,
          lease_owner: null,
          lease_expires_at: null,
          last_attempt_at: at,
          last_error: outcome.error,
          last_response_status: outcome.response_status,
        }))
        .where('id', '=', lease.id)
        .where('lease_token', '=', lease.token)
        .where('status', '=', 'pending')
        .returning(['webhook_id', 'event_id', 'attempts'])
        .executeTakeFirst();
      if (row === undefined) return false;
      const event = await trx
        .selectFrom('events')
        .select('type')
        .where('id', '=', toId(row.event_id))
        .executeTakeFirst();
      await trx
        .insertInto('webhook_attempts')
        .values({
          webhook_id: toId(row.webhook_id),
          event_id: toId(row.event_id),
          event_type: event?.type ?? 'unknown',
          attempt: Number(row.attempts),
          attempted_at: at,
          http_status: outcome.response_status,
          error: outcome.error,
          duration_ms: outcome.duration_ms,
        })
        .execute();
      const delivered = outcome.state === 'delivered';
      // The newest attempt wins, should a worker that lost its lease finish late. A failure keeps
      // the failing_since of the run it continues.
      await trx
        .updateTable('webhooks')
        .set({
          last_delivery_at: at,
          last_delivery_status: delivered ? 'delivered' : 'failing',
          last_delivery_error: outcome.error,
          failing_since: delivered ? null : sql<string>`coalesce(failing_since, ${this.#stamp(at)})`,
        })
        .where('id', '=', toId(row.webhook_id))
        .where((eb) => eb.or([eb('last_delivery_at', 'is', null), eb('last_delivery_at', '<=', at)]))
        .execute();
      return true;
    });
  }
}
