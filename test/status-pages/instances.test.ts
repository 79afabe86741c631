/**
 * docs/status-pages.md, "Several instances": two `serve` processes on one PostgreSQL database. A
 * change made through instance A (a notice, a device paused, a heartbeat's fail pinged) or written
 * by the engine (a status flip) shows on instance B's page, which B keeps otherwise (`X-Cache: hit`). B's kept page has
 * nothing that moves with time and its day ends hours later, so only the change B is told of
 * (LISTEN) can make B read it again: the test waits for the change under the hang guard, never
 * for a time.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { migrateToLatest, openKyselyStore, type OpenedKyselyStore } from '../../stores/kysely/index.ts';
import { mustRecord, recordDeviceCheck, service } from '../api/checks.ts';
import { bootstrapToken, startServe, stopServe, type ServerProcess } from '../support/cli.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';
import { waitFor } from '../support/wait-for.ts';

const pg = await createTestDatabase({ migrated: true });
const servers: ServerProcess[] = [];
let engine: OpenedKyselyStore | undefined;
after(async () => {
  for (const server of servers) await stopServe(server);
  await engine?.store.close();
  if (pg.skip === undefined) await pg.drop();
});

/** An IANA zone where it is about noon now: the page's day ends hours after the test. */
function noonZone(): string {
  const offset = 12 - new Date().getUTCHours();
  // Etc/GMT's signs are POSIX's: Etc/GMT-5 is five hours ahead of UTC.
  return offset === 0 ? 'UTC' : offset > 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
}

suiteOrSkip('status pages on two instances, one PostgreSQL database', pg.skip, {}, () => {
  it("a change through one instance, or the engine's, shows on the other's kept page", async () => {
    if (pg.skip !== undefined) return;
    const a = await startServe(['--database', pg.url]);
    servers.push(a);
    const token = bootstrapToken(a);
    assert.ok(token, 'the first start prints a key');
    const b = await startServe(['--database', pg.url]);
    servers.push(b);
    engine = await openKyselyStore(pg.url, { poolSize: 2 });
    await migrateToLatest(engine.db);

    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${a.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.json()) as { data: { id: number } };
      assert.ok(res.ok, `${method} ${path}: ${JSON.stringify(json)}`);
      return json.data;
    };
    const device = (name: string) =>
      call('POST', '/devices/create', { target_type: 'domain', target_value: name, service_type: 'ssh' });
    const website = (await device('www.acme.example.org')).id;
    const mail = (await device('mail.acme.example.org')).id;
    const up = async (id: number, status: 'up' | 'down') => {
      const at = new Date().toISOString();
      const banner = status === 'up' ? 'SSH-2.0-OpenSSH' : null;
      await mustRecord(
        recordDeviceCheck(engine!.store, id, { checked_at: at, status, results: [service(at, banner)] }),
      );
    };
    await up(website, 'up');
    await up(mail, 'up');
    const slug = `acme-${process.pid}`;
    const page = await call('POST', '/status-pages/create', {
      slug,
      title: 'Acme',
      time_zone: noonZone(),
      components: [
        { name: 'Website', device_id: website },
        { name: 'Mail', device_id: mail },
      ],
    });

    const onB = async () => {
      const res = await fetch(`${new URL(b.url).origin}/status/${slug}/summary.json`);
      assert.equal(res.status, 200);
      const summary = (await res.json()) as { components: { status: string }[]; incidents: { name: string }[] };
      return { cache: res.headers.get('x-cache'), summary };
    };
    /** B keeps its answer while nothing changes: read again, it is sent as kept. */
    const keptOnB = async () => {
      await waitFor('B to keep its answer (once it hears changes)', async () => (await onB()).cache === 'hit');
      return (await onB()).summary;
    };

    const first = await keptOnB();
    assert.deepEqual(
      first.components.map((c) => c.status),
      ['operational', 'operational'],
    );

    // A notice through A.
    await call('POST', '/status-pages/notices/create', {
      status_page_id: page.id,
      title: 'Mail is slow',
      impact: 'minor',
      status: 'investigating',
      message: 'Looking.',
    });
    await waitFor('the notice on B', async () =>
      (await onB()).summary.incidents.some((i) => i.name === 'Mail is slow'),
    );
    await keptOnB();

    // A device paused through A.
    await call('PATCH', `/devices/update?id=${mail}`, { is_enabled: false });
    // Not monitored: left out of summary.json's components, as Statuspage has no such state.
    await waitFor('the pause on B', async () => (await onB()).summary.components.length === 1);
    await keptOnB();

    // A flip written as the engine writes one, by a third process's connection.
    await up(website, 'down');
    await waitFor('the flip on B', async () => (await onB()).summary.components[0]!.status === 'major_outage');

    // A heartbeat's fail, pinged through A, on a page of its own whose kept view nothing else moves.
    const backup = (await call('POST', '/heartbeats/create', { name: 'Backup', period_s: 3600 })) as {
      id: number;
      ping_url: string;
    };
    const ping = async (suffix = '') => assert.equal((await fetch(`${backup.ping_url}${suffix}`)).status, 200);
    await ping();
    const jobs = `jobs-${process.pid}`;
    await call('POST', '/status-pages/create', {
      slug: jobs,
      title: 'Jobs',
      time_zone: noonZone(),
      components: [{ heartbeat_id: backup.id }],
    });
    const jobsOnB = async () => {
      const res = await fetch(`${new URL(b.url).origin}/status/${jobs}/summary.json`);
      const summary = (await res.json()) as { components: { status: string }[] };
      return { cache: res.headers.get('x-cache'), status: summary.components[0]?.status };
    };
    await waitFor('B to keep the jobs page', async () => (await jobsOnB()).cache === 'hit');
    assert.equal((await jobsOnB()).status, 'operational');
    await ping('/fail');
    await waitFor('the heartbeat down on B', async () => (await jobsOnB()).status === 'major_outage');
  });
});
