/**
 * docs/status-pages.md, "Caching and conditional requests": a public answer is kept until what it
 * shows changes (a record of the page's, by the store's word: Store.watchChanges) or the clock
 * alone changes it (a day turning, figures that move with time at most a minute old), never
 * rebuilt per check; `X-Cache` says whether it was sent as kept. A store that cannot tell of
 * changes has every answer read afresh.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryStore, type ChangeListener, type Store } from '../../core/index.ts';
import type { TestApi } from '../../core/testing/index.ts';
import { createTestApi } from '../api/helpers.ts';
import { checkDevice, checkMonitor, newDevice, newMonitor, newPage, publicGet } from './support.ts';

// Noon in UTC: the day turns twelve hours on.
const START = '2026-03-10T12:00:00.000Z';

async function setup(store?: Store) {
  const t = createTestApi(store === undefined ? { start: START } : { start: START, store });
  const key = await t.createKey();
  const device = await newDevice(t, key);
  const monitor = await newMonitor(t, key);
  await checkDevice(t, device, 'up');
  await checkMonitor(t, monitor, []);
  const page = await newPage(t, key, {
    components: [
      { name: 'Website', device_id: device },
      { name: 'Mail', blacklist_monitor_id: monitor },
    ],
  });
  return { t, key, device, monitor, page, userId: key.key.user_id };
}

async function get(t: TestApi, path: string, headers: Record<string, string> = {}) {
  const res = await publicGet(t, path, headers);
  return { ...res, cache: res.headers.get('x-cache') };
}

test('an answer is kept while nothing it shows changes: checks that change nothing keep it', async () => {
  const { t, device, monitor, page } = await setup();
  const paths = ['', '/summary.json', '/feed.atom', '/badge.svg', '/badge.svg?component=1'];
  for (const suffix of paths) {
    assert.equal((await get(t, `/status/${page.slug}${suffix}`)).cache, 'miss', suffix);
  }
  for (const suffix of paths) {
    assert.equal((await get(t, `/status/${page.slug}${suffix}`)).cache, 'hit', suffix);
  }
  t.clock.advance(30_000);
  await checkDevice(t, device, 'up');
  await checkMonitor(t, monitor, []);
  const again = await get(t, `/status/${page.slug}`);
  assert.equal(again.cache, 'hit');
  // Compressed forms are kept too, and a 304 is answered from what is kept.
  const br = await get(t, `/status/${page.slug}`, { 'accept-encoding': 'br' });
  const etag = br.headers.get('etag')!;
  assert.equal((await get(t, `/status/${page.slug}`, { 'accept-encoding': 'br' })).cache, 'hit');
  const notModified = await get(t, `/status/${page.slug}`, { 'if-none-match': etag });
  assert.equal(notModified.status, 304);
  assert.equal(notModified.cache, 'hit');
});

test("a change of one of the page's records shows at once; another page's does not touch it", async () => {
  const { t, key, device, monitor, page, userId } = await setup();
  const other = await newPage(t, key, { components: [{ name: 'Other', device_id: await newDevice(t, key) }] });
  const read = async (slug: string) => get(t, `/status/${slug}/summary.json`);
  await read(page.slug);
  await read(other.slug);

  // A status flip written as the engine writes it.
  t.clock.advance(60_000);
  await checkDevice(t, device, 'down');
  const down = await read(page.slug);
  assert.equal(down.cache, 'miss');
  assert.match(down.text, /"status":"major_outage"/);
  assert.equal((await read(page.slug)).cache, 'hit');
  assert.equal((await read(other.slug)).cache, 'hit', 'another page shows nothing of that device');

  // A listing.
  await checkMonitor(t, monitor, ['zen.spamhaus.org']);
  const listed = await read(page.slug);
  assert.equal(listed.cache, 'miss');
  assert.match(listed.text, /"status":"degraded_performance"/);

  // A notice, written through the store (not this API's routes), is the page's change.
  await read(page.slug);
  const notice = await t.store.createNotice(userId, {
    status_page_id: other.id,
    title: 'Slow mail',
    impact: 'minor',
    status: 'investigating',
    component_indexes: [],
    updates: [{ status: 'investigating', message: 'Looking.', at: new Date(t.clock.now()).toISOString() }],
    resolved_at: null,
    created_at: new Date(t.clock.now()).toISOString(),
    updated_at: new Date(t.clock.now()).toISOString(),
  });
  assert.ok(notice);
  assert.equal((await read(page.slug)).cache, 'hit', "another page's notice");
  const withNotice = await read(other.slug);
  assert.equal(withNotice.cache, 'miss');
  assert.match(withNotice.text, /Slow mail/);

  // The page's own settings, through the store: its slug moves, the old one is gone.
  const { id: _id, ...settings } = page;
  const renamed = await t.store.updateStatusPage(userId, page.id, {
    from: page,
    to: { ...settings, slug: `${page.slug}-new` },
    fields: ['slug'],
    effect: 'none',
    events: [],
    at: new Date(t.clock.now()).toISOString(),
  });
  assert.ok(renamed && 'updated' in renamed);
  assert.equal((await read(page.slug)).status, 404);
  assert.equal((await read(`${page.slug}-new`)).status, 200);
});

test('a maintenance window, made through the API, shows on the page at once', async () => {
  const { t, key, device, page } = await setup();
  assert.equal((await get(t, `/status/${page.slug}`)).cache, 'miss');
  const at = new Date(t.clock.now() + 3_600_000).toISOString();
  const ends = new Date(t.clock.now() + 7_200_000).toISOString();
  const made = await t.request('/v1/maintenance-windows/create', {
    method: 'POST',
    key,
    body: { name: 'Disk swap', starts_at: at, ends_at: ends, device_ids: [device] },
  });
  assert.equal(made.status, 201, made.text);
  const shown = await get(t, `/status/${page.slug}`);
  assert.equal(shown.cache, 'miss');
  assert.match(shown.text, /Disk swap/);
});

test('the clock: a day turning in the page zone, and figures that move with time at most a minute old', async () => {
  const { t, device, page } = await setup();
  await get(t, `/status/${page.slug}`);
  t.clock.advance(6 * 3_600_000);
  assert.equal((await get(t, `/status/${page.slug}`)).cache, 'hit', 'all up: nothing moves with time');
  t.clock.set('2026-03-11T00:00:00.000Z');
  assert.equal((await get(t, `/status/${page.slug}`)).cache, 'miss', 'a new day');

  // Down: today's availability falls with every minute.
  await checkDevice(t, device, 'down');
  assert.equal((await get(t, `/status/${page.slug}`)).cache, 'miss');
  t.clock.advance(30_000);
  assert.equal((await get(t, `/status/${page.slug}`)).cache, 'hit');
  t.clock.advance(31_000);
  assert.equal((await get(t, `/status/${page.slug}`)).cache, 'miss');
});

test('a store that cannot tell of changes has every answer read afresh', async () => {
  const memory = new MemoryStore();
  // The same store, without its optional watchChanges.
  const blind = new Proxy(memory, {
    get(target, name) {
      const value: unknown = Reflect.get(target, name, target);
      if (name === 'watchChanges') return undefined;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const { t, page } = await setup(blind);
  assert.equal((await get(t, `/status/${page.slug}`)).cache, 'miss');
  assert.equal((await get(t, `/status/${page.slug}`)).cache, 'miss');
});

test('while the store does not hear changes nothing is kept; once it hears again, answers are kept again', async () => {
  const memory = new MemoryStore();
  const listeners: ChangeListener[] = [];
  // The memory store, whose hearing the test decides as a lost LISTEN connection would.
  const store = new Proxy(memory, {
    get(target, name) {
      if (name === 'watchChanges')
        return (listener: ChangeListener) => {
          listeners.push(listener);
          return target.watchChanges(listener);
        };
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const { t, page } = await setup(store);
  await get(t, `/status/${page.slug}`);
  assert.equal((await get(t, `/status/${page.slug}`)).cache, 'hit');
  for (const listener of listeners) listener.hearing(false);
  assert.equal((await get(t, `/status/${page.slug}`)).cache, 'miss');
  assert.equal((await get(t, `/status/${page.slug}`)).cache, 'miss');
  for (const listener of listeners) listener.hearing(true);
  assert.equal((await get(t, `/status/${page.slug}`)).cache, 'miss');
  assert.equal((await get(t, `/status/${page.slug}`)).cache, 'hit');
});
