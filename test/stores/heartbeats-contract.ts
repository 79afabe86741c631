import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lateWrite } from '../../core/heartbeats/heartbeat-moves.ts';
import type { NewHeartbeat, ReceivedPing, StoredHeartbeat } from '../../core/records/index.ts';
import type { ClaimedHeartbeat, HeartbeatLateOutcome } from '../../core/store/heartbeat-store.ts';
import type { RecordedCheck } from '../../core/store/monitoring-store.ts';
import type { ContractContext } from './contract-context.ts';
import { at, T0 } from './records.ts';

let tokens = 0;
const token = () => `00000000-0000-4000-8000-${String(++tokens).padStart(12, '0')}`;

export function newHeartbeat(overrides: Partial<NewHeartbeat> = {}): NewHeartbeat & { channel_ids: number[] | null } {
  return {
    name: null,
    period_s: 3600,
    schedule: null,
    time_zone: 'UTC',
    grace_s: 300,
    max_runtime_s: null,
    min_runtime_s: null,
    is_enabled: true,
    channel_ids: null,
    ping_token: token(),
    created_at: T0,
    ...overrides,
  };
}

function ping(hb: StoredHeartbeat, minutes: number, overrides: Partial<ReceivedPing> = {}): ReceivedPing {
  return {
    ping_token: hb.ping_token,
    kind: 'success',
    exit_status: null,
    received_at: at(minutes),
    remote_addr: '192.0.2.7',
    user_agent: 'curl/8',
    body: null,
    rid: null,
    ...overrides,
  };
}

/** The engine's judgement of a claimed heartbeat at `minutes`, as engine/heartbeats/late-heartbeat.ts makes it. */
function judged(claimed: ClaimedHeartbeat, minutes: number): RecordedCheck<HeartbeatLateOutcome> {
  const write = lateWrite(claimed.state, Date.parse(at(minutes)))!;
  return {
    lease: claimed.lease,
    outcome: { previous_status: claimed.state.record.status, write, results: [] },
  };
}

const claim = (minutes: number, owner = 'worker-a', limit = 100) => ({
  owner,
  now: at(minutes),
  limit,
  leaseUntil: at(minutes + 2),
});

/** What every store does with heartbeats (docs/heartbeats.md), held to the same answers. */
export function heartbeatsContract(context: ContractContext): void {
  describe('heartbeats', () => {
    it('creates, lists, gets and deletes; another user sees none of it', async () => {
      const store = context.store();
      const user = await context.newUser();
      const other = await context.newUser();
      const hb = await store.createHeartbeat(user.id, newHeartbeat({ name: 'backup' }));
      assert.deepEqual(hb, {
        ...newHeartbeat({ name: 'backup', ping_token: hb.ping_token }),
        id: hb.id,
        status: 'new',
        status_since: T0,
        last_ping_at: null,
        last_duration_ms: null,
        next_due_at: null,
      });
      assert.deepEqual(await store.listHeartbeats(user.id, { afterId: 0, limit: 10 }), [hb]);
      assert.deepEqual(await store.listHeartbeats(other.id, { afterId: 0, limit: 10 }), []);
      assert.equal(await store.getHeartbeat(other.id, hb.id), undefined);
      assert.equal(await store.deleteHeartbeat(other.id, hb.id), false);
      assert.equal(await store.deleteHeartbeat(user.id, hb.id), true);
      assert.deepEqual(await store.recordPings([ping(hb, 1)]), [false], 'its token is unknown once deleted');
    });

    it('records pings in order, by token, and answers which tokens were known', async () => {
      const store = context.store();
      const user = await context.newUser();
      const hb = await store.createHeartbeat(user.id, newHeartbeat());
      const found = await store.recordPings([
        ping(hb, 1, { kind: 'start', rid: 'r1' }),
        { ...ping(hb, 2), ping_token: token() },
        ping(hb, 3, { rid: 'r1', body: 'done' }),
      ]);
      assert.deepEqual(found, [true, false, true]);
      const now = (await store.getHeartbeat(user.id, hb.id))!;
      assert.deepEqual(
        [now.status, now.last_ping_at, now.last_duration_ms, now.next_due_at],
        ['up', at(3), 120_000, at(3 + 65)],
      );
      const pings = (await store.listHeartbeatPings(user.id, hb.id, { limit: 10 }))!;
      assert.deepEqual(
        pings.map((p) => [p.kind, p.received_at, p.duration_ms, p.body, p.remote_addr]),
        [
          ['success', at(3), 120_000, 'done', '192.0.2.7'],
          ['start', at(1), null, null, '192.0.2.7'],
        ],
      );
      assert.deepEqual(await store.listHeartbeatPings(user.id, hb.id, { limit: 1, beforeId: pings[0]!.id }), [
        pings[1],
      ]);
      assert.equal(await store.listHeartbeatPings((await context.newUser()).id, hb.id, { limit: 10 }), undefined);
    });

    it('keeps the last 1,000 pings of a heartbeat, and deletes old ones by time', async () => {
      const store = context.store();
      const user = await context.newUser();
      const hb = await store.createHeartbeat(user.id, newHeartbeat());
      for (let batch = 0; batch < 3; batch++) {
        await store.recordPings(
          Array.from({ length: 400 }, (_, i) => ping(hb, 1, { kind: 'log', body: String(batch * 400 + i) })),
        );
      }
      const kept = (await store.listHeartbeatPings(user.id, hb.id, { limit: 1001 }))!;
      assert.equal(kept.length, 1000);
      assert.deepEqual([kept[0]!.body, kept[999]!.body], ['1199', '200']);
      assert.equal(await store.deleteHeartbeatPingsBefore(at(2), 600), 600);
      assert.equal((await store.listHeartbeatPings(user.id, hb.id, { limit: 1001 }))!.length, 400);
    });

    it('lists only the last 1,000 pings of a heartbeat at every count, in batches of any size', async () => {
      const store = context.store();
      const user = await context.newUser();
      const hb = await store.createHeartbeat(user.id, newHeartbeat());
      const bodies = async () =>
        (await store.listHeartbeatPings(user.id, hb.id, { limit: 1001 }))!.map((p) => Number(p.body));
      let sent = 0;
      // Counts on both sides of the store's trims, one ping or many at a time.
      for (const size of [999, 1, 1, 49, 50, 1, 98, 1, 1, 250]) {
        await store.recordPings(
          Array.from({ length: size }, (_, i) => ping(hb, 1, { kind: 'log', body: String(sent + i) })),
        );
        sent += size;
        const listed = await bodies();
        const kept = Math.min(sent, 1000);
        assert.equal(listed.length, kept, `after ${sent} pings`);
        assert.deepEqual([listed[0], listed.at(-1)], [sent - 1, sent - kept], `after ${sent} pings`);
      }
      const last = (await store.listHeartbeatPings(user.id, hb.id, { limit: 1000 }))!.at(-1)!;
      assert.deepEqual(await store.listHeartbeatPings(user.id, hb.id, { limit: 10, beforeId: last.id }), []);
      const held = await store.deleteHeartbeatPingsBefore(at(9), 5000);
      assert.ok(held >= 1000 && held < 1100, `the store held ${held} pings: at most 99 more than it lists`);
    });

    it('a batch mixing pings that only move a state with pings that bring events and timeline changes writes each as if alone', async () => {
      const store = context.store();
      const user = await context.newUser();
      const hb = () => store.createHeartbeat(user.id, newHeartbeat({ period_s: 60, grace_s: 60 }));
      const [quiet, failing, started, logged, leased] = [await hb(), await hb(), await hb(), await hb(), await hb()];
      await store.recordPings([ping(quiet, 0), ping(failing, 0), ping(started, 0), ping(logged, 0), ping(leased, 0)]);
      const before = await context.events()?.();
      const [claimed] = await store
        .claimLateHeartbeats({ ...claim(3), limit: 100 })
        .then((all) => all.filter((c) => c.record.id === leased.id));
      assert.ok(claimed, 'the leased one is claimed late');
      const found = await store.recordPings([
        ping(quiet, 1),
        ping(failing, 1, { kind: 'fail', body: 'exit 1' }),
        ping(started, 1, { kind: 'start', rid: 'r' }),
        ping(logged, 1, { kind: 'log', body: 'note' }),
        ping(quiet, 2, { user_agent: 'second' }),
        { ...ping(quiet, 2), ping_token: token() },
        ping(started, 2, { rid: 'r' }),
        ping(leased, 3),
      ]);
      assert.deepEqual(found, [true, true, true, true, true, false, true, true]);
      const now = async (h: StoredHeartbeat) => {
        const read = (await store.getHeartbeat(user.id, h.id))!;
        return [read.status, read.status_since, read.last_ping_at, read.last_duration_ms, read.next_due_at];
      };
      assert.deepEqual(await now(quiet), ['up', at(0), at(2), null, at(4)]);
      assert.deepEqual(await now(failing), ['down', at(1), at(1), null, null]);
      assert.deepEqual(await now(started), ['up', at(2), at(2), 60_000, at(4)]);
      assert.deepEqual(await now(logged), ['up', at(0), at(0), null, at(2)], 'a log ping moves nothing');
      assert.deepEqual(await now(leased), ['up', at(0), at(3), null, at(5)]);
      const agents = (await store.listHeartbeatPings(user.id, quiet.id, { limit: 10 }))!.map((p) => p.user_agent);
      assert.deepEqual(agents, ['second', 'curl/8', 'curl/8'], 'both pings of one heartbeat are kept, in order');
      assert.deepEqual(
        (await store.listHeartbeatPings(user.id, logged.id, { limit: 10 }))!.map((p) => [p.kind, p.body]),
        [
          ['log', 'note'],
          ['success', null],
        ],
      );
      assert.deepEqual(
        await store.recordLateHeartbeats([judged(claimed, 4)]),
        [false],
        "the ping's write ended the lease of the claim before it",
      );
      const timelines = await store.heartbeatTimelines(user.id, [quiet.id, failing.id, started.id], {
        from: at(0),
        to: at(9),
      });
      assert.deepEqual(
        timelines.map((t) => t.changes.map((c) => c.status)),
        [['up'], ['up', 'down'], ['up', 'started', 'up']],
      );
      const after = await context.events()?.();
      if (before !== undefined && after !== undefined) {
        assert.deepEqual(
          after.slice(before.length).map((e) => [e.type, e.resource_id]),
          [['heartbeat.down', failing.id]],
        );
      }
    });

    it('claims late heartbeats once, earliest first; a ping or another claim after expiry fences a judgement', async () => {
      const store = context.store();
      const user = await context.newUser();
      const never = await store.createHeartbeat(user.id, newHeartbeat({ period_s: 60, grace_s: 60 }));
      const a = await store.createHeartbeat(user.id, newHeartbeat({ period_s: 60, grace_s: 60 }));
      const b = await store.createHeartbeat(user.id, newHeartbeat({ period_s: 120, grace_s: 60 }));
      await store.recordPings([ping(a, 0), ping(b, 0)]);
      assert.deepEqual(await store.claimLateHeartbeats(claim(1)), [], 'none late yet');
      const claimed = await store.claimLateHeartbeats(claim(10));
      assert.deepEqual(
        claimed.map((c) => [c.record.id, c.due_at]),
        [
          [a.id, at(2)],
          [b.id, at(3)],
        ],
      );
      assert.equal(
        claimed.every((c) => c.record.id !== never.id),
        true,
        'a heartbeat never pinged is never late',
      );
      assert.deepEqual(await store.claimLateHeartbeats(claim(10, 'worker-b')), [], 'leased: nobody else claims them');
      await store.recordPings([ping(b, 10)]);
      assert.deepEqual(await store.recordLateHeartbeats([judged(claimed[0]!, 10), judged(claimed[1]!, 10)]), [
        true,
        false,
      ]);
      const downA = (await store.getHeartbeat(user.id, a.id))!;
      assert.deepEqual([downA.status, downA.status_since, downA.next_due_at], ['down', at(2), null]);
      assert.equal((await store.getHeartbeat(user.id, b.id))!.status, 'up', 'its ping came between claim and write');
      assert.deepEqual(await store.recordLateHeartbeats([judged(claimed[0]!, 11)]), [false], 'written once');

      assert.equal(await store.deleteHeartbeat(user.id, b.id), true);
      const c = await store.createHeartbeat(user.id, newHeartbeat({ period_s: 60, grace_s: 60 }));
      await store.recordPings([ping(c, 20)]);
      const first = await store.claimLateHeartbeats(claim(30, 'worker-a', 1));
      const again = await store.claimLateHeartbeats(claim(32, 'worker-b'));
      assert.deepEqual(
        again.map((x) => x.record.id),
        [c.id],
        'due again once its lease ran out',
      );
      assert.deepEqual(
        await store.recordLateHeartbeats([judged(first[0]!, 32)]),
        [false],
        'the lapsed lease is fenced',
      );
      assert.deepEqual(await store.recordLateHeartbeats([judged(again[0]!, 32)]), [true]);

      const incidents = (await store.listIncidents(user.id, { from: T0, to: at(60), limit: 10, heartbeat_id: a.id }))!;
      assert.deepEqual(
        incidents.map((i) => [i.heartbeat_id, i.device_id, i.started_at, i.resolved_at, i.cause]),
        [[a.id, null, at(2), null, { probe: 'heartbeat', error: 'late' }]],
      );
      const totals = (await store.heartbeatStatusTotals(user.id, a.id, { from: T0, to: at(12) }))!;
      assert.deepEqual(totals, { ms: { up: 120_000, down: 600_000 }, down_periods: 1, longest_down_ms: 600_000 });
      const events = await context.events()?.();
      if (events !== undefined) {
        const mine = events.filter((e) => e.user_id === user.id);
        assert.deepEqual(
          mine.map((e) => [e.type, e.resource_kind, e.resource_id]),
          [
            ['heartbeat.down', 'heartbeat', a.id],
            ['heartbeat.down', 'heartbeat', c.id],
          ],
        );
      }
    });

    it('a change is compare-and-set; a pause and a resume move the status and the timeline', async () => {
      const store = context.store();
      const user = await context.newUser();
      const hb = await store.createHeartbeat(user.id, newHeartbeat());
      const { ping_token, created_at: _c, ...settings } = newHeartbeat({ ping_token: hb.ping_token });
      const change = (to: Partial<typeof settings>, from: StoredHeartbeat, minutes: number) => ({
        to: { ...settings, ...to, ping_token },
        fields: [...Object.keys(settings), 'ping_token'],
        effect: 'none' as const,
        at: at(minutes),
        events: [],
        from,
      });
      const paused = await store.updateHeartbeat(user.id, hb.id, change({ is_enabled: false }, hb, 10));
      assert.ok(paused !== undefined && 'updated' in paused);
      assert.deepEqual([paused.updated.status, paused.updated.status_since], ['paused', at(10)]);
      assert.deepEqual(await store.updateHeartbeat(user.id, hb.id, change({ grace_s: 600 }, hb, 11)), { stale: true });
      const resumed = await store.updateHeartbeat(user.id, hb.id, change({ is_enabled: true }, paused.updated, 20));
      assert.ok(resumed !== undefined && 'updated' in resumed);
      assert.deepEqual([resumed.updated.status, resumed.updated.status_since], ['new', at(20)]);
      assert.equal(await store.updateHeartbeat((await context.newUser()).id, hb.id, change({}, hb, 21)), undefined);
      const totals = (await store.heartbeatStatusTotals(user.id, hb.id, { from: T0, to: at(30) }))!;
      assert.deepEqual(totals.ms, { new: 20 * 60_000, paused: 10 * 60_000 });
    });

    it('a maintenance window moves a heartbeat in and out once, however often it is applied', async () => {
      const store = context.store();
      const user = await context.newUser();
      const hb = await store.createHeartbeat(user.id, newHeartbeat({ period_s: 60, grace_s: 60 }));
      await store.recordPings([ping(hb, 0)]);
      const window = {
        user_id: user.id,
        device_ids: [],
        blacklist_monitor_ids: [],
        heartbeat_ids: null,
        started_at: at(1),
      };
      assert.equal(await store.syncMaintenance([window], at(1)), 1);
      assert.equal(await store.syncMaintenance([window], at(1)), 0);
      assert.deepEqual(await store.claimLateHeartbeats(claim(5)), [], 'never late in a window');
      assert.equal(await store.syncMaintenance([], at(10)), 1);
      const late = await store.claimLateHeartbeats(claim(10));
      assert.deepEqual(
        late.map((c) => [c.record.id, c.record.next_due_at]),
        [[hb.id, at(10)]],
        'late from the end of the window',
      );
      const totals = (await store.heartbeatStatusTotals(user.id, hb.id, { from: T0, to: at(10) }))!;
      assert.deepEqual(totals.ms, { up: 60_000, maintenance: 9 * 60_000 });
    });

    it("reads the user's heartbeats among ids with their timelines: the change in force at the start, then those inside", async () => {
      const store = context.store();
      const user = await context.newUser();
      const other = await context.newUser();
      const hb = await store.createHeartbeat(user.id, newHeartbeat({ name: 'backup' }));
      const quiet = await store.createHeartbeat(user.id, newHeartbeat());
      const theirs = await store.createHeartbeat(other.id, newHeartbeat());
      await store.recordPings([ping(hb, 1)]);
      await store.recordPings([ping(hb, 2, { kind: 'start' })]);
      await store.recordPings([ping(hb, 3, { kind: 'fail' })]);
      await store.recordPings([ping(hb, 9)]);
      const read = await store.heartbeatTimelines(user.id, [quiet.id, hb.id, theirs.id, hb.id, 999_999], {
        from: at(2),
        to: at(9),
      });
      assert.deepEqual(
        read.map((t) => [t.heartbeat.id, t.heartbeat.name, 'ping_token' in t.heartbeat, t.changes]),
        [
          [
            hb.id,
            'backup',
            false,
            [
              { status: 'started', at: at(2) },
              { status: 'down', at: at(3) },
            ],
          ],
          [quiet.id, null, false, [{ status: 'new', at: T0 }]],
        ],
      );
      assert.deepEqual(await store.heartbeatTimelines(user.id, [], { from: T0, to: at(9) }), []);
    });
  });
}
