/**
 * `npm run bench -- --only notifications`: the channels' figures (docs/notifications.md,
 * "Performance"). CPU per chat message against a webhook delivery, in process, paired round after
 * round against targets in a second process (bench/notifications-cpu.ts); then a burst of events
 * over many channels on SQLite and on PostgreSQL (a database of its own, created and dropped here,
 * skipped with the reason when there is no server), delivered grouped (bench/notifications-burst.ts).
 */
import { join } from 'node:path';
import { createTestDatabase } from '../test/support/postgres.ts';
import type { BenchRun, Report } from './benchmark.ts';
import { startEngineTargets } from './engine-targets-process.ts';
import { benchBurst, type BurstResult } from './notifications-burst.ts';
import { benchChatMessages } from './notifications-cpu.ts';
import { loadNow } from './load-average.ts';

export async function benchNotifications({ smoke, rounds, report, work }: BenchRun): Promise<void> {
  const size = smoke ? { messages: 40, events: 200, channels: 10 } : { messages: 5_000, events: 10_000, channels: 100 };
  const pairs = smoke ? 1 : Math.min(rounds, 5);
  console.log(`notifications: ${pairs} paired round(s), median; ${loadNow()}`);

  const targets = await startEngineTargets();
  try {
    const r = await benchChatMessages(targets, size.messages, pairs);
    const what = `chat messages (${size.messages}, one event each, c=20)`;
    report(what, 'webhook delivery', `${Math.round(r.bare)} /s`, `cpu ${r.bareCpu.toFixed(0)} us/op`, '1.00');
    report(
      what,
      'Slack message',
      `${Math.round(r.engine)} /s`,
      `cpu ${r.engineCpu.toFixed(0)} us/op`,
      (1 / r.cpuRatio).toFixed(2),
      'target <= 1.2',
    );
  } finally {
    await targets.stop();
  }

  const burstRow = (store: string, b: BurstResult) =>
    report(
      `burst of ${b.events} events to ${b.channels} Slack channels (${store})`,
      `${b.delivered} delivered`,
      `last after ${b.seconds.toFixed(1)} s`,
      `${b.messages} messages, ${b.perChannel[0]}-${b.perChannel[1]} per channel`,
      loadNow(),
      'goal <= 15 s',
    );
  burstRow('SQLite', await benchBurst(`sqlite:${join(work, 'burst.db')}`, size.events, size.channels));
  await postgresBurst(report, size.events, size.channels, burstRow);
}

async function postgresBurst(
  report: Report,
  events: number,
  channels: number,
  row: (store: string, b: BurstResult) => void,
): Promise<void> {
  const database = await createTestDatabase();
  if (database.skip !== undefined) {
    report(`burst of ${events} events to ${channels} Slack channels (PostgreSQL)`, 'skipped', database.skip);
    return;
  }
  try {
    row('PostgreSQL', await benchBurst(database.url, events, channels));
  } finally {
    await database.drop();
  }
}
