/**
 * Store.watchChanges (docs/status-pages.md, "Several instances"): every committed change of what
 * a public status answer shows, told as {kind, id}, by any writer; a check that changes nothing
 * shown tells nothing, nor does a ping that leaves a heartbeat up. The memory and SQLite stores
 * tell their own writes; PostgreSQL tells every session's through one LISTEN connection per
 * store, and while that connection is down says it does not hear (once per outage), then hears
 * again.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { MemoryStore, type PingKind, type ReceivedPing, type RecordChanged, type Store } from '../../core/index.ts';
import { migrateToLatest, openKyselyStore, type OpenedKyselyStore } from '../../stores/kysely/index.ts';
import { mustRecord, recordDeviceCheck, service } from '../api/checks.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { newDevice } from '../support/records.ts';
import { newHeartbeat } from './heartbeats-contract.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';
import { waitFor } from '../support/wait-for.ts';

interface Heard {
  changes: RecordChanged[];
  hearing: boolean[];
  stop(): void;
}

function watch(store: Store): Heard {
  const heard: Heard = { changes: [], hearing: [], stop: () => undefined };
  heard.stop = store.watchChanges!({
    changed: (change) => heard.changes.push(change),
    hearing: (live) => heard.hearing.push(live),
  });
  return heard;
}

const has = (heard: Heard, kind: RecordChanged['kind'], id: number) =>
  heard.changes.some((c) => c.kind === kind && c.id === id);

/** Writes through `writer` as the API and the engine do, and proves what `heard` was told (or not). */
async function tellsWhatShows(writer: Store, heard: Heard): Promise<void> {
  const user = await writer.createUser({ name: null, created_at: new Date().toISOString() });
  const created = await writer.createDevice(user.id, newDevice({ target_value: 'a.example.org' }));
  assert.ok('created' in created);
  const device = created.created;
  await waitFor('the device made', () => has(heard, 'device', device.id));

  const at = (s: number) => new Date(Date.parse('2026-05-01T00:00:00.000Z') + s * 1000).toISOString();
  await mustRecord(
    recordDeviceCheck(writer, device.id, { checked_at: at(0), status: 'up', results: [service(at(0), 'SSH')] }),
  );
  await waitFor('the first status', () => heard.changes.filter((c) => c.kind === 'device').length >= 2);
  const before = heard.changes.length;
  // A check that leaves the status as it was tells nothing: the page made next is told first.
  await mustRecord(
    recordDeviceCheck(writer, device.id, { checked_at: at(60), status: 'up', results: [service(at(60), 'SSH')] }),
  );
  const page = await writer.createStatusPage(user.id, {
    slug: `watched-${process.pid}`,
    title: 'Watched',
    description: null,
    components: [{ name: 'A', group: null, device_id: device.id }],
    history_days: 90,
    time_zone: 'UTC',
    show_response_times: false,
    show_targets: false,
    hostname: null,
    is_public: true,
    created_at: at(60),
    updated_at: at(60),
  });
  assert.ok('created' in page);
  const pageId = page.created.id;
  await waitFor('the page made', () => has(heard, 'status_page', pageId));
  assert.deepEqual(heard.changes.slice(before), [{ kind: 'status_page', id: pageId }]);

  // A flip, a notice (as its page), a maintenance window.
  await mustRecord(
    recordDeviceCheck(writer, device.id, { checked_at: at(120), status: 'down', results: [service(at(120), null)] }),
  );
  await waitFor('the flip', () =>
    heard.changes.slice(before + 1).some((c) => c.kind === 'device' && c.id === device.id),
  );
  const noticeAt = heard.changes.length;
  await writer.createNotice(user.id, {
    status_page_id: pageId,
    title: 'Down',
    impact: 'major',
    status: 'investigating',
    component_indexes: [],
    updates: [{ status: 'investigating', message: 'Looking.', at: at(120) }],
    created_at: at(120),
    updated_at: at(120),
    resolved_at: null,
  });
  await waitFor('the notice', () =>
    heard.changes.slice(noticeAt).some((c) => c.kind === 'status_page' && c.id === pageId),
  );
  const window = await writer.createMaintenanceWindow(user.id, {
    name: 'Swap',
    starts_at: at(3600),
    ends_at: at(7200),
    repeat: null,
    device_ids: [device.id],
    all_devices: false,
    blacklist_monitor_ids: [],
    all_blacklist_monitors: false,
    heartbeat_ids: [],
    all_heartbeats: false,
    created_at: at(120),
  });
  await waitFor('the window', () => has(heard, 'maintenance_window', window.id));

  // A heartbeat: made and its first ping (up) are told; a run started and ended while it stays up
  // is not (pings come often); a fail is.
  const hb = await writer.createHeartbeat(user.id, newHeartbeat({ ping_token: randomUUID(), created_at: at(0) }));
  const ping = (s: number, kind: PingKind): ReceivedPing => ({
    ping_token: hb.ping_token,
    kind,
    exit_status: null,
    received_at: at(s),
    remote_addr: null,
    user_agent: null,
    body: null,
    rid: null,
  });
  const told = () => heard.changes.filter((c) => c.kind === 'heartbeat' && c.id === hb.id).length;
  await writer.recordPings([ping(130, 'success')]);
  await waitFor('the heartbeat made and up', () => told() >= 2);
  const up = told();
  await writer.recordPings([ping(140, 'start')]);
  await writer.recordPings([ping(150, 'success')]);
  await writer.recordPings([ping(160, 'fail')]);
  await waitFor('the heartbeat down', () => told() > up);
  assert.equal(told(), up + 1, 'the pings that left it up told nothing');
}

describe('memory store', () => {
  it('tells its own writes of what a status page shows, and hears from the start', async () => {
    const store = new MemoryStore();
    const heard = watch(store);
    assert.deepEqual(heard.hearing, [true]);
    await tellsWhatShows(store, heard);
    heard.stop();
  });
});

describe('SQLite store', () => {
  it("tells its own writes, the engine's included, through its connection's triggers", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'monitoring-api-changes-'));
    const { store, db } = await openKyselyStore(`sqlite:${join(dir, 'changes.db')}`);
    try {
      await migrateToLatest(db);
      const heard = watch(store);
      assert.deepEqual(heard.hearing, [true]);
      await tellsWhatShows(store, heard);
      heard.stop();
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

const pg = await createTestDatabase({ migrated: true });
const opened: OpenedKyselyStore[] = [];
after(async () => {
  for (const o of opened) await o.store.close();
  if (pg.skip === undefined) await pg.drop();
});

suiteOrSkip('PostgreSQL', pg.skip, { concurrency: 1 }, () => {
  const lost: Error[] = [];
  let back = 0;
  async function open(): Promise<OpenedKyselyStore> {
    if (pg.skip !== undefined) throw new Error(pg.skip);
    const o = await openKyselyStore(pg.url, {
      poolSize: 2,
      connectionTimeoutMs: HANG_GUARD_MS,
      queryTimeoutMs: HANG_GUARD_MS,
      onChangesLost: (error) => lost.push(error),
      onChangesBack: () => back++,
    });
    opened.push(o);
    await migrateToLatest(o.db);
    return o;
  }

  it("tells another session's writes through LISTEN; an outage is told once and ends", async () => {
    const watched = await open();
    const writer = await open();
    const heard = watch(watched.store);
    await waitFor('hearing', () => heard.hearing.includes(true));
    await tellsWhatShows(writer.store, heard);

    // The LISTEN connection ended by the server: not hearing, told once, then hearing again.
    const ended = async () =>
      sql`select pg_terminate_backend(pid) from pg_stat_activity
        where application_name = 'monitoring-api listen' and datname = current_database()`.execute(writer.db);
    await ended();
    await waitFor('hearing lost', () => heard.hearing.includes(false));
    await waitFor('hearing again', () => heard.hearing.at(-1) === true);
    assert.equal(lost.length, 1);
    assert.equal(back, 1);
    const user = await writer.store.createUser({ name: null, created_at: new Date().toISOString() });
    const created = await writer.store.createDevice(user.id, newDevice({ target_value: 'b.example.org' }));
    assert.ok('created' in created);
    await waitFor('a change after the outage', () => has(heard, 'device', created.created.id));
    heard.stop();
  });
});
