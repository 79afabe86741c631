import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import {
  EVENT_TYPES,
  type ChannelLease,
  type ChannelMessageClaim,
  type ChannelMessageKind,
  type ChannelMessageOutcome,
  type ChannelType,
  type ClaimedChannelMessage,
  type EventData,
  type EventType,
  type MonitoringEvent,
  type NotificationStore,
  type QueuedNotificationReason,
  type Timestamp,
} from '../../../core/index.ts';
import {
  channelsServing,
  disabledEventData,
  recoveryFollowsEscalation,
  recoveryNeedsEscalation,
  scheduleFor,
} from '../../../core/internal.ts';
import { sqlOf } from '../drivers/sql-of.ts';
import { fanOutBatch } from '../event-fanout.ts';
import { stampText, toId, toStamp } from '../rows.ts';
import type { Database, DbInteger } from '../schema.ts';
import type { StoreContext } from '../store-context.ts';
import { channelFromRow } from './channel-rows.ts';
import { dropRecoveriesOf, escalationOf, queueNextReminders } from './incident-notifications.ts';

const CHANNEL_FANOUT = { markers: 'channel_event_fanouts', floor: 'channel_fanout_floor' } as const;

/** The notification queue of `KyselyStore` (core/store/notification-store.ts), on PostgreSQL and SQLite alike. */
export class KyselyNotifications implements NotificationStore {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  fanOutNotifications(now: Timestamp, limit: number): Promise<number> {
    return this.#ctx.run((db) =>
      db
        .transaction()
        .execute((trx) =>
          fanOutBatch(trx, this.#ctx.dialect, CHANNEL_FANOUT, now, limit, (ids) => this.#expand(trx, ids, now)),
        ),
    );
  }

  async #expand(trx: Kysely<Database>, eventIds: number[], now: Timestamp): Promise<void> {
    const rows = await trx.selectFrom('events').selectAll().where('id', 'in', eventIds).execute();
    const users = [...new Set(rows.map((e) => toId(e.user_id)))];
    const channels = (await trx.selectFrom('channels').selectAll().where('user_id', 'in', users).execute()).map(
      (row) => ({ userId: toId(row.user_id), channel: channelFromRow(row) }),
    );
    const inserts = [];
    for (const row of rows) {
      const event = eventOf(row);
      const own = channels.filter((c) => c.userId === event.user_id).map((c) => c.channel);
      for (const channelId of channelsServing(event, own)) {
        const channel = own.find((c) => c.id === channelId)!;
        if (
          recoveryNeedsEscalation(event, channel) &&
          !recoveryFollowsEscalation(await escalationOf(trx, this.#ctx.dialect, channelId, row), now)
        ) {
          continue;
        }
        for (const due of scheduleFor(event, channel, now)) {
          inserts.push({
            channel_id: channelId,
            event_id: event.id,
            status: 'pending' as const,
            next_attempt_at: stampText(due.due_at),
            reason: due.reason,
            seq: due.seq,
            due_at: stampText(due.due_at),
          });
        }
      }
    }
    for (let start = 0; start < inserts.length; start += 500) {
      const slice = inserts.slice(start, start + 500);
      await trx
        .insertInto('notifications')
        .values(slice)
        .onConflict((oc) => oc.columns(['channel_id', 'event_id', 'reason', 'seq']).doNothing())
        .execute();
      await trx
        .insertInto('channel_queue')
        .values([...new Set(slice.map((r) => r.channel_id))].map((channel_id) => ({ channel_id })))
        .onConflict((oc) => oc.column('channel_id').doNothing())
        .execute();
    }
  }

  async claimChannelMessages(claim: ChannelMessageClaim): Promise<ClaimedChannelMessage[]> {
    const now = stampText(claim.now);
    const token = randomUUID();
    const { dialect } = this.#ctx;
    const lock = sql.raw(sqlOf(dialect).skipLocked('q'));
    const enabled = dialect === 'postgres' ? sql`true` : sql`1`;
    // One statement, so SQLite takes its write lock once and PostgreSQL's SKIP LOCKED keeps two
    // workers off the same channel.
    const claimed = await this.#ctx.run((db) =>
      sql<{ channel_id: DbInteger }>`
        update channel_queue set lease_token = ${token}, lease_owner = ${claim.owner},
          lease_expires_at = ${stampText(claim.leaseUntil)}
        where channel_id in (
          select q.channel_id from channel_queue q join channels c on c.id = q.channel_id
          where c.is_enabled = ${enabled}
            and (q.lease_expires_at is null or q.lease_expires_at <= ${now})
            and (q.next_message_at is null or q.next_message_at <= ${now})
            and exists (select 1 from notifications n where n.channel_id = q.channel_id
              and n.status = 'pending' and n.next_attempt_at <= ${now})
          order by q.channel_id limit ${claim.limit} ${lock})
        returning channel_id`.execute(db),
    );
    const out: ClaimedChannelMessage[] = [];
    for (const { channel_id } of claimed.rows) {
      const channelId = toId(channel_id);
      const row = await this.#ctx.db.selectFrom('channels').selectAll().where('id', '=', channelId).executeTakeFirst();
      if (row === undefined) continue;
      const channel = channelFromRow(row);
      const cap = claim.oneAtATime.includes(channel.type as ChannelType) ? 1 : claim.maxNotifications;
      const due = await this.#ctx.db
        .selectFrom('notifications as n')
        .innerJoin('events as e', 'e.id', 'n.event_id')
        .select([
          'n.id as nid',
          'n.attempts',
          'n.reached_attempts',
          'n.reason',
          'e.id',
          'e.user_id',
          'e.type',
          'e.created_at',
          'e.data',
        ])
        .where('n.channel_id', '=', channelId)
        .where('n.status', '=', 'pending')
        .where('n.next_attempt_at', '<=', now)
        .orderBy('n.id')
        .limit(cap)
        .execute();
      out.push({
        lease: { channelId, token },
        channel: { id: channel.id, name: channel.name, type: channel.type, config: channel.config },
        notifications: due.map((n) => ({
          id: toId(n.nid),
          attempts: Number(n.attempts),
          reached_attempts: Number(n.reached_attempts),
          reason: n.reason,
          event: eventOf(n),
        })),
      });
    }
    return out;
  }

  recordChannelMessage(lease: ChannelLease, outcome: ChannelMessageOutcome): Promise<boolean> {
    const { dialect } = this.#ctx;
    return this.#ctx.write((db) =>
      db.transaction().execute(async (trx) => {
        const at = stampText(outcome.attempted_at);
        const released = await trx
          .updateTable('channel_queue')
          .set({
            lease_token: null,
            lease_owner: null,
            lease_expires_at: null,
            next_message_at: outcome.next_message_at === null ? null : stampText(outcome.next_message_at),
          })
          .where('channel_id', '=', lease.channelId)
          .where('lease_token', '=', lease.token)
          .executeTakeFirst();
        if (released.numUpdatedRows === 0n) return false;
        const ids = outcome.notification_ids;
        if (ids.length > 0) {
          await trx
            .updateTable('notifications')
            .set((eb) => ({
              attempts: eb('attempts', '+', 1),
              ...(outcome.reached === true ? { reached_attempts: eb('reached_attempts', '+', 1) } : {}),
              ...(outcome.state === 'pending'
                ? { next_attempt_at: stampText(outcome.next_attempt_at ?? outcome.attempted_at) }
                : { status: outcome.state === 'delivered' ? ('delivered' as const) : ('failed' as const) }),
            }))
            .where('id', 'in', ids)
            .where('channel_id', '=', lease.channelId)
            .execute();
        }
        if (outcome.state === 'delivered' || outcome.state === 'failed') {
          await queueNextReminders(trx, lease.channelId, ids, outcome.attempted_at);
        }
        // An escalation given up that cannot have been heard: its incident's recovery is not told either.
        if (outcome.state === 'failed') await dropRecoveriesOf(trx, lease.channelId, ids);
        const carried =
          ids.length === 0
            ? []
            : await trx
                .selectFrom('notifications as n')
                .innerJoin('events as e', 'e.id', 'n.event_id')
                .select(['e.id', 'e.type', 'n.reason'])
                .where('n.id', 'in', ids)
                .orderBy('e.id')
                .execute();
        const events = [...new Map(carried.map((e) => [toId(e.id), e])).values()];
        const types = new Set(events.map((e) => e.type));
        await trx
          .insertInto('channel_attempts')
          .values({
            channel_id: lease.channelId,
            kind: messageKind(carried.map((n) => n.reason)),
            event_ids: JSON.stringify(events.map((e) => toId(e.id))),
            event_types: JSON.stringify(EVENT_TYPES.filter((type) => types.has(type))),
            attempt: outcome.attempt,
            attempted_at: at,
            http_status: outcome.http_status,
            error: outcome.error,
            duration_ms: outcome.duration_ms,
          })
          .execute();
        const delivered = outcome.state === 'delivered';
        await trx
          .updateTable('channels')
          .set({
            last_delivery_at: at,
            last_delivery_status: delivered ? 'delivered' : 'failing',
            last_delivery_error: outcome.error,
            failing_since: delivered ? null : sql<string>`coalesce(failing_since, ${sqlOf(dialect).stamp(at)})`,
          })
          .where('id', '=', lease.channelId)
          .where((eb) => eb.or([eb('last_delivery_at', 'is', null), eb('last_delivery_at', '<=', at)]))
          .execute();
        if (outcome.state === 'disabled') {
          const row = await trx
            .updateTable('channels')
            .set({ is_enabled: sqlOf(dialect).flag(false), disabled_reason: outcome.disabled_reason ?? 'disabled' })
            .where('id', '=', lease.channelId)
            .returningAll()
            .executeTakeFirst();
          if (row !== undefined) {
            const channel = channelFromRow(row);
            await trx
              .insertInto('events')
              .values({
                user_id: toId(row.user_id),
                type: 'channel.disabled',
                resource_kind: 'channel',
                resource_id: channel.id,
                created_at: at,
                data: JSON.stringify(disabledEventData(channel)),
              })
              .execute();
          }
        }
        return true;
      }),
    );
  }
  dropChannelNotifications(lease: ChannelLease, ids: readonly number[], release: boolean): Promise<boolean> {
    return this.#ctx.write((db) =>
      db.transaction().execute(async (trx) => {
        // The lease is checked (and released) first, so a lost lease drops nothing.
        const held = await trx
          .updateTable('channel_queue')
          .set(
            release ? { lease_token: null, lease_owner: null, lease_expires_at: null } : { lease_token: lease.token },
          )
          .where('channel_id', '=', lease.channelId)
          .where('lease_token', '=', lease.token)
          .executeTakeFirst();
        if (held.numUpdatedRows === 0n) return false;
        if (ids.length > 0) {
          await trx
            .updateTable('notifications')
            .set({ status: 'dropped' })
            .where('id', 'in', [...ids])
            .where('channel_id', '=', lease.channelId)
            .where('status', '=', 'pending')
            .execute();
          // A dropped escalation that cannot have been heard takes its incident's pending recovery
          // with it, whichever message that recovery would go in.
          await dropRecoveriesOf(trx, lease.channelId, ids);
        }
        return true;
      }),
    );
  }
}

/**
 * The kind of a message's attempt row: `reminder` or `acknowledgement` when it carried only those,
 * else `events` (an escalation is the incident's event, told late).
 */
function messageKind(reasons: readonly QueuedNotificationReason[]): ChannelMessageKind {
  if (reasons.length > 0 && reasons.every((r) => r === 'reminder')) return 'reminder';
  if (reasons.length > 0 && reasons.every((r) => r === 'acknowledgement')) return 'acknowledgement';
  return 'events';
}

function eventOf(row: {
  id: DbInteger;
  user_id: DbInteger;
  type: EventType;
  created_at: Parameters<typeof toStamp>[0];
  data: string;
}): MonitoringEvent {
  return {
    id: toId(row.id),
    user_id: toId(row.user_id),
    type: row.type,
    created_at: toStamp(row.created_at),
    data: JSON.parse(row.data) as EventData,
  };
}
