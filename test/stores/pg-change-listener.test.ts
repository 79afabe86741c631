/**
 * The LISTEN connection's probe (stores/kysely/drivers/pg-change-listener.ts): a connection whose
 * network goes silent, with no reset ever coming, is found by its `select 1` failing through the
 * client's query timeout, told lost once, and made again once traffic flows. PostgreSQL through a
 * fault proxy of the test's own that stalls every byte; skipped when PostgreSQL is unreachable,
 * except under CI=true.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import pg from 'pg';
import { ChangeFeed } from '../../core/internal.ts';
import type { RecordChanged } from '../../core/index.ts';
import { CHANGES_CHANNEL, PgChangeListener } from '../../stores/kysely/drivers/pg-change-listener.ts';
import { startFaultProxy } from '../hardening/fault-proxy.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';
import { waitFor } from '../support/wait-for.ts';

const database = await createTestDatabase();
after(async () => {
  if (database.skip === undefined) await database.drop();
});

suiteOrSkip('the LISTEN connection on PostgreSQL', database.skip, {}, () => {
  it('a connection gone silent is found by its probe, told lost once, and made again', async () => {
    if (database.skip !== undefined) throw new Error(database.skip);
    const url = new URL(database.url);
    const proxy = await startFaultProxy(Number(url.port || 5432), url.hostname);
    const viaProxy = new URL(database.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const hearing: boolean[] = [];
    const changes: RecordChanged[] = [];
    const lost: Error[] = [];
    let back = 0;
    const feed = new ChangeFeed();
    feed.watch({ changed: (change) => changes.push(change), hearing: (live) => hearing.push(live) });
    const listener = new PgChangeListener(feed, {
      // The query timeout is what tells a stalled connection from a quiet one: only the probe's
      // `select 1` runs on it, and while the proxy stalls it can never be answered.
      client: () => new pg.Client({ connectionString: viaProxy.toString(), query_timeout: 2_000 }),
      onLost: (error) => lost.push(error),
      onBack: () => back++,
      probeMs: 50,
    });
    const writer = new pg.Client({ connectionString: database.url });
    try {
      await writer.connect();
      listener.start();
      await waitFor('hearing', () => hearing.at(-1) === true);
      assert.equal(listener.live, true);

      proxy.stall();
      await waitFor('hearing lost', () => hearing.at(-1) === false);
      assert.equal(listener.live, false);
      assert.ok(lost.length >= 1, 'the outage was told');
      assert.match(lost.at(-1)!.message, /timeout/i);

      proxy.restore();
      await waitFor('hearing again', () => hearing.at(-1) === true);
      assert.equal(back, lost.length, 'each outage told once, and its end once');
      await writer.query('select pg_notify($1, $2)', [CHANGES_CHANNEL, 'device:42']);
      await waitFor('a change after the outage', () => changes.some((c) => c.kind === 'device' && c.id === 42));
    } finally {
      await listener.close();
      await writer.end();
      await proxy.close();
    }
  });
});
