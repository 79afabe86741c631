/**
 * docs/status-pages.md, "Managing pages" and "Public routes": a heartbeat as a page's component,
 * on every store. Its id is judged as a device's, its name lent; its state in words (never pinged
 * or paused: not monitored), its days by the heartbeat's own availability arithmetic in the page's
 * zone, maintenance covering it; kept answers go when it changes state, never for a ping that
 * changes nothing shown.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AvailabilityReport, Heartbeat, StatusPage } from '../../core/index.ts';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import type { TestApi } from '../../core/testing/index.ts';
import { assertSuccess, eachStore } from '../api/helpers.ts';
import { waitFor } from '../support/wait-for.ts';
import { checkDevice, newDevice, newPage, newSlug, publicGet, summary } from './support.ts';

async function newHeartbeat(t: TestApi, key: CreatedApiKey, name = 'Nightly backup') {
  const body = { name, period_s: 3600, grace_s: 300 };
  const hb = assertSuccess(await t.request<Heartbeat>('/v1/heartbeats/create', { method: 'POST', key, body }), 201);
  return { id: hb.id, path: new URL(hb.ping_url!).pathname };
}

const status = async (t: TestApi, slug: string) => (await summary(t, slug)).components.map((c) => [c.name, c.status]);

eachStore('heartbeats on status pages', (env) => {
  test('a component names one heartbeat of the user’s, whose name it takes unless given one', async () => {
    const { t, key } = await env.setup();
    const hb = await newHeartbeat(t, key);
    const device = await newDevice(t, key);
    const page = await newPage(t, key, {
      components: [{ heartbeat_id: hb.id }, { name: 'Backups', group: 'Jobs', heartbeat_id: hb.id }],
    });
    assert.deepEqual(page.components, [
      { name: 'Nightly backup', group: null, heartbeat_id: hb.id },
      { name: 'Backups', group: 'Jobs', heartbeat_id: hb.id },
    ]);

    const stranger = await t.createKey();
    const theirs = await newHeartbeat(t, stranger, 'Theirs');
    const create = (components: unknown[]) =>
      t.request('/v1/status-pages/create', {
        method: 'POST',
        key,
        body: { slug: newSlug(), title: 'Acme', components },
      });
    const refused = await create([{ heartbeat_id: hb.id }, { heartbeat_id: theirs.id }, { heartbeat_id: 99_999 }]);
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual(
      refused.body.error!.details!.map((d) => [d.field, d.code]),
      [
        ['components[1].heartbeat_id', 'invalid_value'],
        ['components[2].heartbeat_id', 'invalid_value'],
      ],
    );
    const two = await create([{ name: 'Both', device_id: device, heartbeat_id: hb.id }]);
    assert.equal(two.status, 400, two.text);
    assert.deepEqual(
      two.body.error!.details!.map((d) => [d.field, d.code]),
      [['components[0]', 'invalid_value']],
    );
    const listed = await t.request<StatusPage[]>('/v1/status-pages', { key });
    assert.equal(listed.body.data!.length, 1, 'nothing made by a refused create');
  });

  test('its state in words: never pinged or paused not monitored, up, down, under maintenance', async () => {
    const { t, key } = await env.setup({ start: '2026-03-10T12:00:00.000Z' });
    const [never, up, down, paused, serviced] = [
      await newHeartbeat(t, key, 'Never'),
      await newHeartbeat(t, key, 'Up'),
      await newHeartbeat(t, key, 'Down'),
      await newHeartbeat(t, key, 'Paused'),
      await newHeartbeat(t, key, 'Serviced'),
    ];
    for (const hb of [up, down, paused, serviced]) assert.equal((await t.ping(hb.path)).status, 200);
    assert.equal((await t.ping(`${down.path}/fail`)).status, 200);
    const pause = await t.request(`/v1/heartbeats/update?id=${paused.id}`, {
      method: 'PATCH',
      key,
      body: { is_enabled: false },
    });
    assert.equal(pause.status, 200, pause.text);
    const window = await t.request('/v1/maintenance-windows/create', {
      method: 'POST',
      key,
      body: {
        name: 'Backup disk swap',
        starts_at: new Date(t.clock.now() + 60_000).toISOString(),
        ends_at: new Date(t.clock.now() + 3_600_000).toISOString(),
        heartbeat_ids: [serviced.id],
      },
    });
    assert.equal(window.status, 201, window.text);
    t.clock.advance(120_000);

    const page = await newPage(t, key, {
      components: [never, up, down, paused, serviced].map((hb) => ({ heartbeat_id: hb.id })),
    });
    assert.deepEqual(await status(t, page.slug), [
      ['Up', 'operational'],
      ['Down', 'major_outage'],
      ['Serviced', 'under_maintenance'],
    ]);
    const html = (await publicGet(t, `/status/${page.slug}`)).text;
    for (const words of ['Operational', 'Major outage', 'Under maintenance', 'Not monitored']) {
      assert.ok(html.includes(`>${words}</p>`), words);
    }
    assert.match(html, /Backup disk swap/);
    const quiet = await newPage(t, key, { components: [{ heartbeat_id: never.id }, { heartbeat_id: paused.id }] });
    assert.equal((await summary(t, quiet.slug)).status.indicator, 'none', 'nothing monitored: no outage');
    const critical = await newPage(t, key, { components: [{ heartbeat_id: down.id }, { heartbeat_id: never.id }] });
    assert.equal((await summary(t, critical.slug)).status.indicator, 'critical');
    const badge = (await publicGet(t, `/status/${page.slug}/badge.svg?component=2`)).text;
    assert.match(badge, /major outage/i);

    // Deleted: the component stays, not monitored, and the page can still be changed.
    assert.equal((await t.request(`/v1/heartbeats/delete?id=${down.id}`, { method: 'DELETE', key })).status, 200);
    assert.deepEqual(await status(t, page.slug), [
      ['Up', 'operational'],
      ['Serviced', 'under_maintenance'],
    ]);
    const renamed = await t.request(`/v1/status-pages/update?id=${page.id}`, {
      method: 'PATCH',
      key,
      body: { title: 'Jobs' },
    });
    assert.equal(renamed.status, 200, renamed.text);
  });

  test('bars per local day with the heartbeat’s exact availability, its incidents in their days', async () => {
    const { t, key } = await env.setup({ start: '2026-03-10T00:00:00.000Z' });
    const hb = await newHeartbeat(t, key);
    await t.ping(hb.path);
    // Ten minutes down at 04:00 UTC, 09:30 in Kolkata (UTC+05:30): the local day of 12 March.
    t.clock.set('2026-03-12T04:00:00.000Z');
    await t.ping(`${hb.path}/fail`);
    t.clock.set('2026-03-12T04:10:00.000Z');
    await t.ping(hb.path);
    // A run started and not yet finished counts as up.
    t.clock.set('2026-03-12T20:00:00.000Z');
    await t.ping(`${hb.path}/start`);
    t.clock.set('2026-03-12T20:05:00.000Z');
    await t.ping(hb.path);
    t.clock.set('2026-03-13T00:00:00.000Z');
    const page = await newPage(t, key, { components: [{ heartbeat_id: hb.id }], time_zone: 'Asia/Kolkata' });
    const html = (await publicGet(t, `/status/${page.slug}`)).text;
    const labels = [...html.matchAll(/<li class="(\w+)"><span>([^<]*)<\/span><\/li>/g)].map((m) => [m[1], m[2]]);
    assert.equal(labels.length, 90);
    assert.deepEqual(labels.at(-2), ['minor', '2026-03-12: 99.3056 % available, 1 incident, 10 min down']);
    assert.deepEqual(labels.at(-1), ['ok', '2026-03-13: 100 % available'], 'today so far, from local midnight');
    assert.deepEqual(labels.at(-5), ['none', '2026-03-09: no data'], 'before the heartbeat existed');
    const from = '2025-12-13T00:00:00.000Z';
    const report = assertSuccess(
      await t.request<AvailabilityReport>(
        `/v1/heartbeats/availability?id=${hb.id}&from=${from}&to=2026-03-13T00:00:00Z`,
        { key },
      ),
      200,
    );
    assert.ok(html.includes(`${report.availability} % available over 90 days`), `${report.availability}`);
    const badge = (await publicGet(t, `/status/${page.slug}/badge.svg?component=0&uptime=2d`)).text;
    assert.match(badge, /Nightly backup uptime 2d: 99\.65%/);
  });

  test('a kept answer goes when a heartbeat shown changes state, not for a ping that changes nothing', async () => {
    const { t, key } = await env.setup({ start: '2026-03-10T12:00:00.000Z' });
    const hb = await newHeartbeat(t, key);
    const device = await newDevice(t, key);
    await checkDevice(t, device, 'up');
    await t.ping(hb.path);
    const page = await newPage(t, key, { components: [{ heartbeat_id: hb.id }, { name: 'Web', device_id: device }] });
    const read = async () => {
      const res = await publicGet(t, `/status/${page.slug}/summary.json`);
      return { cache: res.headers.get('x-cache'), text: res.text };
    };
    // PostgreSQL tells the store's own writes through LISTEN too: its first answer is kept once it hears.
    const keptAgain = () => waitFor('the answer kept', async () => (await read()).cache === 'hit');
    await read();
    await keptAgain();
    t.clock.advance(60_000);
    await t.ping(hb.path);
    await t.ping(`${hb.path}/start`);
    await t.ping(hb.path);
    assert.equal((await read()).cache, 'hit', 'pings that leave it up change nothing shown');

    await t.ping(`${hb.path}/fail`);
    const down = await untilMiss(read);
    assert.match(down.text, /"status":"major_outage"/);
    await keptAgain();
    await t.ping(hb.path);
    const back = await untilMiss(read);
    assert.doesNotMatch(back.text, /major_outage/);
  });
});

/** Reads until an answer is read afresh: on PostgreSQL the change is told asynchronously. */
async function untilMiss(read: () => Promise<{ cache: string | null; text: string }>) {
  let last: { cache: string | null; text: string } | undefined;
  await waitFor('the change heard', async () => (last = await read()).cache === 'miss');
  return last!;
}
