import { sql } from 'kysely';
import type { NewChannel } from '../core/index.ts';
import { startFakeSlack } from '../test/support/fakes/slack.ts';
import {
  channelDeliveryFrom,
  createChannelDispatcher,
  ENGINE_DEFAULTS,
  migrateToLatest,
  openKyselyStore,
} from './compiled.ts';
import { noLookup } from './engine-records.ts';
import { listedEvent } from './notifications-cpu.ts';

/** Events committed per transaction, as the engine's check writes commit them. */
const EVENTS_PER_COMMIT = 100;

export interface BurstResult {
  events: number;
  channels: number;
  /** From the first event's commit to the end of the last delivered message's attempt. */
  seconds: number;
  /** Messages the fake Slack accepted, and the fewest and most one channel got. */
  messages: number;
  perChannel: [number, number];
  /** Notifications delivered, of `events` (one event, one channel). */
  delivered: number;
}

/**
 * A burst of `events` events over `channels` Slack channels (one user, each event's record naming
 * one channel, as a rack's devices name theirs): the events are committed `EVENTS_PER_COMMIT` at a
 * time as fast as the store takes them, while the engine's channel dispatcher
 * (engine/channels/channel-dispatcher.ts, its default poll interval and concurrency) runs on the
 * same store and sends to the fake Slack (test/support/fakes/slack.ts) in this process. Ends once
 * every notification is delivered; the grouping window (10 s for Slack) says how many messages
 * each channel may get.
 */
export async function benchBurst(databaseUrl: string, events: number, channels: number): Promise<BurstResult> {
  const slack = await startFakeSlack();
  const { store, db } = await openKyselyStore(databaseUrl);
  const delivery = channelDeliveryFrom({ allowPrivateTargets: true, lookup: noLookup, timeoutMs: 10_000 });
  const dispatcher = createChannelDispatcher({
    store,
    delivery,
    pollIntervalMs: ENGINE_DEFAULTS.pollIntervalMs,
    logger: { warn: (text) => console.log(`  ${text}`), error: (text, error) => console.log(`  ${text}`, error) },
  });
  try {
    await migrateToLatest(db);
    const created = new Date(Date.now() - 60_000).toISOString();
    const user = await store.createUser({ name: 'bench-channels', created_at: created });
    const ids: number[] = [];
    for (let c = 0; c < channels; c++) {
      const channel: NewChannel = {
        name: `rack ${c}`,
        type: 'slack',
        config: { webhook_url: `http://127.0.0.1:${slack.port}/services/T0/B${c}/x` },
        events: ['blacklist.listed'],
        is_default: false,
        remind_every_s: null,
        escalate_after_s: null,
        send_recovery: true,
        is_enabled: true,
        created_at: created,
        last_delivery_at: null,
        last_delivery_status: null,
        last_delivery_error: null,
        failing_since: null,
        disabled_reason: null,
      };
      ids.push((await store.createChannel(user.id, channel)).id);
    }
    dispatcher.start();
    const started = Date.now();
    for (let start = 0; start < events; start += EVENTS_PER_COMMIT) {
      const rows = [];
      for (let i = start; i < Math.min(events, start + EVENTS_PER_COMMIT); i++) {
        const event = listedEvent(i + 1, [ids[i % channels]!]);
        rows.push({
          user_id: user.id,
          type: event.type,
          resource_kind: 'blacklist_monitor' as const,
          resource_id: i + 1,
          created_at: new Date().toISOString(),
          data: JSON.stringify(event.data),
        });
      }
      await db.insertInto('events').values(rows).execute();
    }
    let delivered = 0;
    // A guard against a dispatcher that never delivers, never a bound on speed.
    const guard = Date.now() + 600_000;
    while (delivered < events && Date.now() < guard) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const counted = await sql<{ n: number | string }>`
        select count(*) as n from notifications where status = 'delivered'`.execute(db);
      delivered = Number(counted.rows[0]!.n);
    }
    const last = await sql<{ at: string | Date | null }>`select max(attempted_at) as at from channel_attempts`.execute(
      db,
    );
    const lastAt = last.rows[0]!.at;
    const perPath = new Map<string, number>();
    for (const request of slack.accepted) perPath.set(request.path, (perPath.get(request.path) ?? 0) + 1);
    if (slack.refused.length > 0) throw new Error(`the fake Slack refused ${slack.refused.length} messages`);
    const counts = ids.map((_, c) => perPath.get(`/services/T0/B${c}/x`) ?? 0);
    return {
      events,
      channels,
      seconds: lastAt === null ? Number.NaN : (new Date(lastAt).getTime() - started) / 1000,
      messages: slack.accepted.length,
      perChannel: [Math.min(...counts), Math.max(...counts)],
      delivered,
    };
  } finally {
    await dispatcher.stop();
    await store.close();
    await slack.close();
  }
}
