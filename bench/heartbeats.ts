/**
 * `npm run bench -- --only heartbeats`: the heartbeats' figures (docs/heartbeats.md, "Performance");
 * `--only pings` runs the first part alone.
 * A ping's CPU against GET /v1/me on the same server, on SQLite and PostgreSQL (bench/api/pings.ts);
 * then 100,000 heartbeats at a 60 s period on PostgreSQL pinged for one period by this process,
 * a share left to go late for a `monitoring-api worker` process to find (bench/heartbeats-lateness.ts).
 * The PostgreSQL parts use databases of their own, created and dropped here, and are skipped with
 * the reason when there is no server.
 */
import { createTestDatabase } from '../test/support/postgres.ts';
import { pingsAgainstMe } from './api/pings.ts';
import { serveApi, sharedSqliteApi, sqliteDatabase } from './api/serve.ts';
import type { BenchRun } from './benchmark.ts';
import { benchLateness, type LatenessResult } from './heartbeats-lateness.ts';
import { loadNow } from './load-average.ts';

/** `--only pings`: the first part alone, a ping's CPU against GET /v1/me on SQLite and PostgreSQL. */
export async function benchPings(run: BenchRun): Promise<void> {
  const { report } = run;
  await pingsAgainstMe(run, await sharedSqliteApi(run), sqliteDatabase(run), 'SQLite');

  const pings = await createTestDatabase();
  if (pings.skip !== undefined) {
    report('GET /ping/<uuid> (PostgreSQL)', 'skipped', pings.skip);
    return;
  }
  const api = await serveApi(run, pings.url);
  try {
    await pingsAgainstMe(run, api, pings.url, 'PostgreSQL');
  } finally {
    // The server's pool would reconnect while the database is dropped: it goes first.
    await api.server.stop();
    await pings.drop();
  }
}

export async function benchHeartbeats(run: BenchRun): Promise<void> {
  const { smoke, report } = run;
  const size = smoke
    ? { heartbeats: 300, windowS: 2, skipEvery: 10 }
    : { heartbeats: 100_000, windowS: 60, skipEvery: 100 };
  await benchPings(run);
  const database = await createTestDatabase();
  if (database.skip !== undefined) {
    report('heartbeats at 60 s (PostgreSQL)', 'skipped', database.skip);
    return;
  }
  let r: LatenessResult;
  try {
    r = await benchLateness(run, database.url, size.heartbeats, size.windowS, size.skipEvery);
  } finally {
    await database.drop();
  }
  const what = `heartbeats at 60 s (PostgreSQL, ${r.heartbeats}, 1 worker process)`;
  report(
    what,
    `pings ${r.pinged} of ${r.due} answered 200`,
    `${r.sent} sent, ${Math.round(r.perSecond)}/s`,
    `answer p50 ${r.answerP50.toFixed(1)} ms p99 ${r.answerP99.toFixed(1)} ms`,
    `recorded ${r.recorded}`,
    `cores: server ${r.cores.server.toFixed(2)}, worker ${r.cores.worker.toFixed(2)}, rest ${r.cores.others.toFixed(2)}`,
    loadNow(),
  );
  report(
    what,
    `late ${r.found} of ${r.unpinged} un-pinged`,
    `p50 ${r.lateP50.toFixed(2)} s`,
    `p99 ${r.lateP99.toFixed(2)} s`,
    `max ${r.lateMax.toFixed(2)} s`,
    `false downs ${r.falseDowns}`,
    'goal p99 <= 5 s',
  );
}
