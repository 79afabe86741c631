/**
 * docs/status-pages.md, "The page": every text the owner wrote is escaped in every public answer,
 * targets are never shown unless asked, and a page of 20 components × 90 days stays within 60 KB
 * as sent to a client that accepts compression.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { brotliDecompressSync } from 'node:zlib';
import type { TestApi } from '../../core/testing/index.ts';
import { createTestApi } from '../api/helpers.ts';
import { checkDevice, newDevice, newMonitor, newNotice, newPage, publicGet } from './support.ts';

const HOUR = 3_600_000;
/** Text that would be markup if it were not escaped, in each kind of place it could land. */
const HOSTILE = `<script>document.title='pwned'</script><img src=x onerror="alert(1)"> & ' " </title></style>]]>`;

test('every text the owner wrote is escaped, in the page, its feed, its summary and its badges', async () => {
  const t = createTestApi();
  const key = await t.createKey();
  const device = await newDevice(t, key);
  await checkDevice(t, device, 'up');
  const monitor = await newMonitor(t, key);
  const page = await newPage(t, key, {
    title: `Acme ${HOSTILE}`.slice(0, 100),
    description: `Line ${HOSTILE}\nsecond line`,
    components: [
      { name: `API ${HOSTILE}`.slice(0, 100), group: `Group ${HOSTILE}`.slice(0, 100), device_id: device },
      { name: 'Mail', blacklist_monitor_id: monitor },
    ],
  });
  await newNotice(t, key, { status_page_id: page.id, title: `Notice ${HOSTILE}`, message: `Body ${HOSTILE}\nmore` });
  await t.request('/v1/maintenance-windows/create', {
    method: 'POST',
    key,
    body: {
      name: `Window ${HOSTILE}`,
      starts_at: new Date(t.clock.now() + HOUR).toISOString(),
      ends_at: new Date(t.clock.now() + 2 * HOUR).toISOString(),
      device_ids: [device],
    },
  });
  for (const path of ['', '/feed.atom', '/badge.svg?component=0', '/badge.svg?component=0&uptime=7d']) {
    const text = (await publicGet(t, `/status/${page.slug}${path}`)).text;
    for (const raw of ['<script', '<img', 'onerror="', "'pwned'", '</title></style>', ']]>']) {
      assert.ok(!text.includes(raw), `${path || 'the page'} carries ${raw} as written`);
    }
    assert.ok(text.includes('&lt;script&gt;'), `${path || 'the page'} shows the text, escaped`);
  }
  const html = (await publicGet(t, `/status/${page.slug}`)).text;
  assert.ok(html.includes('Body &lt;script&gt;') && html.includes('<br>more'), 'line feeds become line breaks');
  // JSON carries the text as it is: escaping is the reader's, in its own markup.
  const json = JSON.parse((await publicGet(t, `/status/${page.slug}/summary.json`)).text) as { page: { name: string } };
  assert.equal(json.page.name, page.title);
  await t.close();
});

test('targets appear only on a page that shows them', async () => {
  const t = createTestApi();
  const key = await t.createKey();
  const device = await newDevice(t, key, 'secret-origin.acme.example.org');
  await checkDevice(t, device, 'up');
  const monitor = await newMonitor(t, key, 'mail-relay.acme.example.org');
  const components = [
    { name: 'API', device_id: device },
    { name: 'Mail', blacklist_monitor_id: monitor },
  ];
  const hidden = await newPage(t, key, { components });
  const shown = await newPage(t, key, { components, show_targets: true });
  for (const path of ['', '/summary.json', '/feed.atom', '/badge.svg', '/badge.svg?component=0']) {
    const text = (await publicGet(t, `/status/${hidden.slug}${path}`)).text;
    assert.ok(!text.includes('secret-origin') && !text.includes('mail-relay') && !text.includes(':22'), path);
  }
  const html = (await publicGet(t, `/status/${shown.slug}`)).text;
  assert.ok(html.includes('secret-origin.acme.example.org:22 (ssh)') && html.includes('mail-relay.acme.example.org'));
  await t.close();
});

/** A page as busy as the limit is about: 20 devices, 90 days of varied outages, response times, notices. */
async function busyPage(t: TestApi) {
  const key = await t.createKey();
  const devices: number[] = [];
  for (let i = 0; i < 20; i++) devices.push(await newDevice(t, key));
  for (const id of devices) await checkDevice(t, id, 'up');
  const start = t.clock.now();
  for (let day = 0; day < 91; day++) {
    for (const [i, id] of devices.entries()) {
      if ((day * 7 + i * 3) % 5 !== 0) continue;
      t.clock.set(start + day * 24 * HOUR + (i + 1) * 37 * 60_000);
      await checkDevice(t, id, 'down');
      t.clock.set(start + day * 24 * HOUR + (i + 1) * 37 * 60_000 + ((day % 13) + i + 1) * 61_000);
      await checkDevice(t, id, 'up');
    }
  }
  t.clock.set(start + 91 * 24 * HOUR);
  const components = devices.map((id, i) => ({
    name: `Service number ${i + 1}`,
    group: `Region ${i % 4}`,
    device_id: id,
  }));
  const page = await newPage(t, key, { components, show_response_times: true, time_zone: 'Europe/Berlin' });
  for (let i = 0; i < 3; i++) {
    await newNotice(t, key, { status_page_id: page.id, title: `Degraded region ${i}`, component_indexes: [i, i + 4] });
  }
  return page;
}

test('20 components × 90 days: at most 60 KB as sent compressed', async (c) => {
  const t = createTestApi({ start: '2026-01-01T00:00:00.000Z' });
  const page = await busyPage(t);
  const url = `http://monitoring.test/status/${page.slug}`;
  const sizes: Record<string, number> = {};
  let plain = '';
  for (const encoding of ['identity', 'gzip', 'br']) {
    const res = await t.api.fetch(new Request(url, { headers: { 'accept-encoding': encoding } }));
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.equal(res.status, 200);
    sizes[encoding] = bytes.byteLength;
    if (encoding === 'identity') plain = new TextDecoder().decode(bytes);
    if (encoding === 'br') assert.equal(new TextDecoder().decode(brotliDecompressSync(bytes)), plain);
  }
  assert.equal([...plain.matchAll(/<li class="\w+"><span>[^<]+<\/span>/g)].length, 20 * 90, 'every bar labelled');
  assert.ok(plain.includes('ms average response'));
  c.diagnostic(`20 components × 90 days: ${sizes.identity} bytes plain, ${sizes.gzip} gzip, ${sizes.br} br`);
  assert.ok(sizes.gzip! <= 60 * 1024, `gzip ${sizes.gzip}`);
  assert.ok(sizes.br! <= 60 * 1024, `br ${sizes.br}`);
  await t.close();
});
