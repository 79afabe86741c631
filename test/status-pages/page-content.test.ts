/**
 * docs/status-pages.md, "Public routes" and "The page": what a page shows, on every store, from
 * checks written as the engine writes them and an injected clock: each component's state and the
 * page's indicator, the days and their availability by the reports' arithmetic in the page's time
 * zone, notices and maintenance.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AvailabilityReport } from '../../core/index.ts';
import { assertSuccess, eachStore } from '../api/helpers.ts';
import { checkDevice, checkMonitor, newDevice, newMonitor, newNotice, newPage, publicGet, summary } from './support.ts';

const HOUR = 3_600_000;

eachStore('what a status page shows', (env) => {
  test('each component’s state in Statuspage’s words, and the page’s indicator', async () => {
    const { t, key } = await env.setup();
    const [up, flaky, down, paused, serviced] = [
      await newDevice(t, key),
      await newDevice(t, key),
      await newDevice(t, key),
      await newDevice(t, key),
      await newDevice(t, key),
    ];
    const [clean, listed] = [await newMonitor(t, key), await newMonitor(t, key)];
    for (const id of [up, flaky, down, serviced]) await checkDevice(t, id, 'up');
    await checkMonitor(t, clean, []);
    await checkMonitor(t, listed, ['zen.spamhaus.org']);
    t.clock.advance(60_000);
    await checkDevice(t, flaky, 'validating');
    await checkDevice(t, down, 'down');
    await t.request(`/v1/devices/update?id=${paused}`, { method: 'PATCH', key, body: { is_enabled: false } });
    const user = (await t.request<{ user_id: number }>('/v1/me', { key })).body.data!.user_id;
    const now = new Date(t.clock.now()).toISOString();
    await t.store.syncMaintenance(
      [{ user_id: user, device_ids: [serviced], blacklist_monitor_ids: [], heartbeat_ids: [], started_at: now }],
      now,
    );
    const never = await newDevice(t, key);

    const component = (name: string, id: number, kind = 'device_id') => ({ name, [kind]: id });
    const all = await newPage(t, key, {
      components: [
        component('Up', up),
        component('Flaky', flaky),
        component('Down', down),
        component('Paused', paused),
        component('Serviced', serviced),
        component('Never checked', never),
        component('Clean', clean, 'blacklist_monitor_id'),
        component('Listed', listed, 'blacklist_monitor_id'),
      ],
    });
    const shown = await summary(t, all.slug);
    assert.deepEqual(
      shown.components.map((c) => [c.name, c.status]),
      [
        ['Up', 'operational'],
        ['Flaky', 'partial_outage'],
        ['Down', 'major_outage'],
        ['Serviced', 'under_maintenance'],
        ['Clean', 'operational'],
        ['Listed', 'degraded_performance'],
      ],
      'not monitored (paused, never checked) is left out',
    );
    assert.deepEqual(shown.status, { indicator: 'major', description: 'Partial System Outage' });
    const html = (await publicGet(t, `/status/${all.slug}`)).text;
    for (const words of [
      'Partial outage',
      'Major outage',
      'Under maintenance',
      'Degraded performance',
      'Not monitored',
    ]) {
      assert.ok(html.includes(`>${words}</p>`), words);
    }

    const indicator = async (components: Record<string, unknown>[]) =>
      (await summary(t, (await newPage(t, key, { components })).slug)).status.indicator;
    assert.equal(await indicator([component('A', up), component('B', paused)]), 'none');
    assert.equal(await indicator([component('A', up), component('B', flaky)]), 'minor');
    assert.equal(await indicator([component('A', up), component('B', listed, 'blacklist_monitor_id')]), 'minor');
    assert.equal(await indicator([component('A', down), component('B', never)]), 'critical');
    assert.equal(await indicator([component('A', up), component('B', serviced)]), 'maintenance');
  });

  test('bars per local day with the reports’ exact availability; the range equal to the availability report', async () => {
    const { t, key } = await env.setup({ start: '2026-03-10T00:00:00.000Z' });
    const device = await newDevice(t, key);
    await checkDevice(t, device, 'up');
    // Ten minutes down at 04:00 UTC, 09:30 in Kolkata (UTC+05:30): the local day of 12 March.
    t.clock.set('2026-03-12T04:00:00.000Z');
    await checkDevice(t, device, 'down');
    t.clock.set('2026-03-12T04:10:00.000Z');
    await checkDevice(t, device, 'up');
    t.clock.set('2026-03-13T00:00:00.000Z');
    const page = await newPage(t, key, { components: [{ name: 'API', device_id: device }], time_zone: 'Asia/Kolkata' });
    const html = (await publicGet(t, `/status/${page.slug}`)).text;
    const labels = [...html.matchAll(/<li class="(\w+)"><span>([^<]*)<\/span><\/li>/g)].map((m) => [m[1], m[2]]);
    assert.equal(labels.length, 90);
    assert.deepEqual(labels.at(-2), ['minor', '2026-03-12: 99.3056 % available, 1 incident, 10 min down']);
    assert.deepEqual(labels.at(-1), ['ok', '2026-03-13: 100 % available'], 'today so far, from local midnight');
    assert.deepEqual(labels.at(-5), ['none', '2026-03-09: no data'], 'before the device existed');
    // The range: from the page's first day (or 90 × 24 h ago, if earlier) to now.
    const from = '2025-12-13T00:00:00.000Z';
    const report = assertSuccess(
      await t.request<AvailabilityReport>(
        `/v1/devices/availability?id=${device}&from=${from}&to=2026-03-13T00:00:00Z`,
        { key },
      ),
      200,
    );
    assert.ok(html.includes(`${report.availability} % available over 90 days`), `${report.availability}`);
    const badge = (await publicGet(t, `/status/${page.slug}/badge.svg?component=0&uptime=2d`)).text;
    assert.match(badge, /API uptime 2d: 99\.65%/);
  });

  test('notices: current ones with their updates, resolved ones for 14 days, every one in the feed', async () => {
    const { t, key } = await env.setup();
    const device = await newDevice(t, key);
    await checkDevice(t, device, 'up');
    const page = await newPage(t, key, { components: [{ name: 'API', device_id: device }] });
    const old = await newNotice(t, key, { status_page_id: page.id, title: 'Old trouble', status: 'resolved' });
    t.clock.advance(20 * 24 * HOUR);
    const recent = await newNotice(t, key, { status_page_id: page.id, title: 'Recent trouble', status: 'resolved' });
    t.clock.advance(3 * 24 * HOUR);
    const open = await newNotice(t, key, {
      status_page_id: page.id,
      title: 'Slow API',
      impact: 'major',
      component_indexes: [0],
    });
    t.clock.advance(HOUR);
    const update = { status: 'identified', message: 'A disk is full.' };
    await t.request(`/v1/status-pages/notices/update?id=${open.id}`, { method: 'PATCH', key, body: update });

    const html = (await publicGet(t, `/status/${page.slug}`)).text;
    const current = html.slice(html.indexOf('Current notices'), html.indexOf('id="components"'));
    assert.ok(current.includes('Slow API') && current.includes('A disk is full.') && current.includes('Looking.'));
    assert.ok(current.indexOf('A disk is full.') < current.indexOf('Looking.'), 'newest update first');
    const past = html.slice(html.indexOf('Resolved in the last 14 days'));
    assert.ok(past.includes('Recent trouble'));
    assert.ok(!html.includes('Old trouble'), 'resolved 23 days ago: off the page');
    assert.ok(html.includes('1 notice</span>'), 'the day of the notice says so in its bar');

    const shown = await summary(t, page.slug);
    assert.deepEqual(
      shown.incidents.map((i) => [
        i.name,
        i.status,
        i.impact,
        i.incident_updates.map((u) => u.status),
        i.components.map((c) => c.name),
      ]),
      [['Slow API', 'identified', 'major', ['identified', 'investigating'], ['API']]],
    );
    const feed = (await publicGet(t, `/status/${page.slug}/feed.atom`)).text;
    const titles = [...feed.matchAll(/<entry><id>[^<]*<\/id><title>([^<]*)<\/title>/g)].map((m) => m[1]);
    assert.deepEqual(titles, ['Slow API (identified)', 'Recent trouble (resolved)', 'Old trouble (resolved)']);
    assert.ok(feed.includes(`/notice/${old.id}</id>`) && feed.includes(`/notice/${recent.id}</id>`));
  });

  test('maintenance in force or in the next 7 days, from the windows covering its components', async () => {
    const { t, key } = await env.setup();
    const device = await newDevice(t, key);
    const other = await newDevice(t, key);
    const window = (name: string, startsInHours: number, ids: number[]) =>
      t.request('/v1/maintenance-windows/create', {
        method: 'POST',
        key,
        body: {
          name,
          starts_at: new Date(t.clock.now() + startsInHours * HOUR).toISOString(),
          ends_at: new Date(t.clock.now() + (startsInHours + 2) * HOUR).toISOString(),
          device_ids: ids,
        },
      });
    await window('Now', -1, [device]);
    await window('In three days', 72, [device]);
    await window('In ten days', 240, [device]);
    await window('Someone else’s device', 1, [other]);
    const page = await newPage(t, key, { components: [{ name: 'API', device_id: device }] });
    const shown = await summary(t, page.slug);
    assert.deepEqual(
      shown.scheduled_maintenances.map((m) => [m.name, m.status]),
      [
        ['Now', 'in_progress'],
        ['In three days', 'scheduled'],
      ],
    );
    const html = (await publicGet(t, `/status/${page.slug}`)).text;
    assert.ok(html.includes('In progress') && html.includes('Scheduled') && !html.includes('In ten days'));
  });
});
