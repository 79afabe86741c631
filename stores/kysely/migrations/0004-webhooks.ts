import { sql } from 'kysely';
import type { Migration } from 'kysely';
import { primaryKey, TYPES } from './column-types.ts';
import type { StoreDialect } from '../schema.ts';

/**
 * Webhook endpoints and their delivery queue (docs/engine.md, "Events and webhooks"); forward
 * only. Deliveries refer to the `events` outbox of migration 0003 and go with their event or
 * endpoint when either is deleted.
 */
export function webhooks(dialect: StoreDialect): Migration {
  const t = TYPES[dialect];
  return {
    async up(db) {
      await db.schema
        .createTable('webhooks')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('events', 'text', (c) => c.notNull())
        .addColumn('is_enabled', t.flag, (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('created_at', t.stamp, (c) => c.notNull())
        .addColumn('last_delivery_at', t.stamp)
        .addColumn('last_delivery_status', 'text')
        .execute();
      // The duplicate rule, decided by the index so concurrent creates make one webhook.
      await db.schema.createIndex('webhooks_identity').unique().on('webhooks').columns(['user_id', 'url']).execute();
      await db.schema.createIndex('webhooks_user_id_id').on('webhooks').columns(['user_id', 'id']).execute();

      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('event_id', t.ref, (c) => c.notNull().references('events.id').onDelete('cascade'))
        .addColumn('webhook_id', t.ref, (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', t.stamp, (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('lease_token', 'text')
        .addColumn('lease_owner', 'text')
        .addColumn('lease_expires_at', t.stamp)
        .addColumn('last_attempt_at', t.stamp)
        .addColumn('last_error', 'text')
        .addColumn('last_response_status', 'integer')
        .execute();
      // One delivery per event and endpoint (fan-out is idempotent through it); it also finds an
      // endpoint's oldest pending delivery, which is what keeps deliveries in event order.
      await db.schema
        .createIndex('webhook_deliveries_identity')
        .unique()
        .on('webhook_deliveries')
        .columns(['webhook_id', 'event_id'])
        .execute();
      // The claim looks at pending deliveries by due time only; delivered ones pile up beside them.
      await sql`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at, id)
        where status = 'pending'`.execute(db);
      await db.schema.createIndex('webhook_deliveries_event_id').on('webhook_deliveries').column('event_id').execute();

      await db.schema
        .createTable('webhook_event_fanouts')
        .addColumn('event_id', t.ref, (c) => c.primaryKey().references('events.id').onDelete('cascade'))
        .addColumn('fanned_out_at', t.stamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('webhook_fanout_floor')
        .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
        .addColumn('event_id', t.ref, (c) => c.notNull())
        .execute();
      await db.insertInto('webhook_fanout_floor').values({ id: 1, event_id: 0 }).execute();
    },
  };
}
