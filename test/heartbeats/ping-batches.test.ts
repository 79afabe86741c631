/**
 * docs/heartbeats.md, "Durability": pings are written in batches, a ping answered once its batch is
 * committed. The pings a server reads in one turn of its event loop (each request its own I/O
 * callback) go into one batch, so a busy server commits once for many pings, not once each.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock, MemoryStore, type Heartbeat } from '../../core/index.ts';
import { createTestApi } from '../../core/testing/index.ts';

describe('ping batches', () => {
  it('pings handed in by separate callbacks of one turn of the event loop are written as one batch', async () => {
    const clock = new ManualClock();
    const store = new MemoryStore({ clock });
    const batches: number[] = [];
    const recordPings = store.recordPings.bind(store);
    store.recordPings = (pings) => {
      batches.push(pings.length);
      return recordPings(pings);
    };
    const t = createTestApi({ store, clock });
    const key = await t.createKey();
    const body = { period_s: 3600 };
    const hb = (await t.request<Heartbeat>('/v1/heartbeats/create', { method: 'POST', key, body })).body.data!;
    const path = new URL(hb.ping_url!).pathname;
    // As a server's requests arrive: each in a callback of its own, the five in the same phase.
    const answers = await Promise.all(
      Array.from(
        { length: 5 },
        () => new Promise<number>((done) => setImmediate(() => done(t.ping(path).then((a) => a.status)))),
      ),
    );
    assert.deepEqual(answers, [200, 200, 200, 200, 200]);
    assert.deepEqual(batches, [5], 'one batch, one commit');
    await t.close();
  });
});
