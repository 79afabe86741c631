/**
 * docs/engine.md, "Maintenance windows": several `monitoring-api worker` processes on one
 * PostgreSQL database apply the same window at the same moments, and every device's
 * maintenance_started and maintenance_ended is written exactly once.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';
import { waitFor } from '../support/wait-for.ts';
import { startWorker } from '../support/worker-process.ts';
import { setTimeout as delay } from 'node:timers/promises';

const created = await createTestDatabase({ migrated: true });
const DEVICES = 120;

suiteOrSkip(
  'maintenance windows with several workers, one PostgreSQL database, real processes',
  created.skip,
  {},
  () => {
    const database = 'skip' in created ? undefined : created;
    const opened = database === undefined ? undefined : openKyselyStore(database.url, { poolSize: 2 });
    after(async () => {
      await (await opened)?.store.close();
      await database?.drop();
    });

    it('four workers: each device enters and leaves maintenance once, each announced once', async () => {
      const { db, store } = (await opened)!;
      await migrateToLatest(db);
      const now = new Date();
      const user = await store.createUser({ name: null, created_at: now.toISOString() });
      // Devices on loopback, never due during the window: the workers only flip them. Checked
      // after it, their probes are refused by the target policy before any connection is made.
      await sql`insert into devices (user_id, target_type, target_value, service_type, scheme, port, proxy_enabled,
        check_public_http, check_public_https, check_public_tls, check_origin_http, check_origin_tls, is_enabled,
        created_at, check_interval_s, status, last_results, consecutive_failures, next_check_at)
      select ${user.id}, 'ip', '127.0.0.1', 'tcp', null, n, false, false, false, false, false, false, true,
        ${now.toISOString()}, 86400, 'up', '{}', 0, '2100-01-01T00:00:00Z'
      from generate_series(1, ${DEVICES}) as n`.execute(db);
      const count = async (type: string) =>
        Number(
          (await sql<{ n: string }>`select count(*) as n from events where type = ${type}`.execute(db)).rows[0]!.n,
        );
      const inStatus = async (status: string) =>
        Number(
          (await sql<{ n: string }>`select count(*) as n from devices where status = ${status}`.execute(db)).rows[0]!.n,
        );

      const workers = await Promise.all(
        [0, 1, 2, 3].map((i) =>
          startWorker(['--database', database!.url, '--poll-interval', '100', '--worker-id', `w${i}`]),
        ),
      );
      // The window starts a moment after every worker is polling, so that all of them meet its
      // start within a poll interval of one another and race to apply it.
      const soon = (ms: number) => new Date(Date.now() + ms).toISOString();
      const window = await store.createMaintenanceWindow(user.id, {
        name: 'all',
        starts_at: soon(300),
        ends_at: soon(3_600_000),
        repeat: null,
        device_ids: [],
        all_devices: true,
        blacklist_monitor_ids: [],
        all_blacklist_monitors: false,
        heartbeat_ids: [],
        all_heartbeats: false,
        created_at: now.toISOString(),
      });
      await waitFor('every device in maintenance', async () => (await inStatus('maintenance')) === DEVICES);
      // Nothing can be waited for here: what is checked is that no more is written. Every worker
      // polls every 100 ms, so in this time each has applied the same window a few times more.
      await delay(1000);
      assert.equal(await count('device.maintenance_started'), DEVICES);

      // The window is cut short: every device back to pending, announced once.
      await sql`update maintenance_windows set ends_at = ${soon(300)} where id = ${window.id}`.execute(db);
      await waitFor('every device out of maintenance', async () => (await inStatus('maintenance')) === 0);
      await delay(1000);
      assert.equal(await count('device.maintenance_ended'), DEVICES);
      assert.equal(await count('device.maintenance_started'), DEVICES);
      const { rows } = await sql<{
        n: string;
      }>`select count(distinct resource_id) as n from events where type = 'device.maintenance_ended'`.execute(db);
      assert.equal(Number(rows[0]!.n), DEVICES);
      for (const worker of workers) {
        worker.child.kill('SIGTERM');
        assert.equal(await worker.exited, 0, worker.stderr.join('\n'));
      }
    });
  },
);
