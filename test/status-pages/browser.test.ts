/**
 * docs/status-pages.md, "The page", in a real browser: Debian's Chromium, driven by playwright-core
 * (no browser download), loads a status page from a node:http server on loopback with JavaScript
 * off and on, light and dark; axe-core finds no serious or critical accessibility violation; every
 * owner-written field holds an XSS attempt, and none of them runs, even with the page's CSP set
 * aside; screenshots are kept in test-results/. Without Chromium the test is skipped, saying so,
 * except under CI=true, where it fails.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { chromium, type BrowserContext } from 'playwright-core';
import { createNodeHandler } from '../../adapters/node/index.ts';
import type { Heartbeat } from '../../core/index.ts';
import { createTestApi } from '../../core/testing/index.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';
import { ROOT } from '../support/root.ts';
import { checkDevice, checkMonitor, newDevice, newMonitor, newNotice, newPage } from './support.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const SHOTS = join(ROOT, 'test-results');
const HOUR = 3_600_000;
/** Each would set the marker if it ran: as a script, an event handler, a URL, out of an attribute. */
const XSS = `<script>window.__xss=1</script><img src=x onerror="window.__xss=1">"><svg onload=window.__xss=1>'`;

const missing = existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing (apt-get install -y chromium)`;
if (missing !== undefined && process.env.CI === 'true') throw new Error(`${missing}: under CI=true this fails`);

/** A page with every kind of thing on it, every owner-written text an attack: its path on `base`. */
async function hostilePage() {
  const t = createTestApi({ start: '2026-02-01T00:00:00.000Z' });
  const key = await t.createKey();
  const [a, b] = [await newDevice(t, key), await newDevice(t, key)];
  const monitor = await newMonitor(t, key);
  for (const id of [a, b]) await checkDevice(t, id, 'up');
  await checkMonitor(t, monitor, []);
  for (let day = 1; day < 40; day += 6) {
    t.clock.set(Date.parse('2026-02-01T00:00:00.000Z') + day * 24 * HOUR);
    await checkDevice(t, a, 'down');
    t.clock.advance((day + 5) * 60_000);
    await checkDevice(t, a, 'up');
  }
  await checkDevice(t, b, 'down');
  await checkMonitor(t, monitor, ['zen.spamhaus.org']);
  const short = (text: string) => text.slice(0, 100);
  // Heartbeats: one pinged, then failed (its name, an attack, lent to its component); one never pinged.
  const heartbeat = async (name: string) => {
    const body = { name, period_s: 3600 };
    const made = await t.request<Heartbeat>('/v1/heartbeats/create', { method: 'POST', key, body });
    assert.equal(made.status, 201, made.text);
    return made.body.data!;
  };
  const [job, idle] = [await heartbeat(short(`Backup ${XSS}`)), await heartbeat('Idle job')];
  await t.ping(job.ping_url!);
  await t.ping(`${job.ping_url!}/fail`);
  const page = await newPage(t, key, {
    title: short(`Acme ${XSS}`),
    description: `About ${XSS}\nSecond line`,
    show_response_times: true,
    time_zone: 'America/New_York',
    components: [
      { name: short(`API ${XSS}`), group: short(`Group ${XSS}`), device_id: a },
      { name: short(`Web ${XSS}`), group: short(`Group ${XSS}`), device_id: b },
      { name: short(`Mail ${XSS}`), blacklist_monitor_id: monitor },
      { group: short(`Jobs ${XSS}`), heartbeat_id: job.id },
      { heartbeat_id: idle.id },
    ],
  });
  const notice = await newNotice(t, key, { status_page_id: page.id, title: `Outage ${XSS}`, message: `We see ${XSS}` });
  await t.request(`/v1/status-pages/notices/update?id=${notice.id}`, {
    method: 'PATCH',
    key,
    body: { status: 'identified', message: `Cause ${XSS}` },
  });
  await newNotice(t, key, {
    status_page_id: page.id,
    title: `Done ${XSS}`,
    status: 'resolved',
    message: `Fixed ${XSS}`,
  });
  await t.request('/v1/maintenance-windows/create', {
    method: 'POST',
    key,
    body: {
      name: `Upgrade ${XSS}`,
      starts_at: new Date(t.clock.now() + 24 * HOUR).toISOString(),
      ends_at: new Date(t.clock.now() + 26 * HOUR).toISOString(),
      device_ids: [a],
    },
  });
  return { t, path: `/status/${page.slug}`, title: page.title };
}

async function inChromium<T>(
  options: Parameters<typeof chromium.launchPersistentContext>[1],
  use: (context: BrowserContext) => Promise<T>,
) {
  // A fresh profile each time: nothing carried over from another run or test.
  const profile = await mkdtemp(join(tmpdir(), 'status-page-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: ARGS,
    headless: true,
    timeout: HANG_GUARD_MS,
    ...options,
  });
  context.setDefaultTimeout(HANG_GUARD_MS);
  context.setDefaultNavigationTimeout(HANG_GUARD_MS);
  try {
    return await use(context);
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }
}

const AXE = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown }[];
}

test(
  'the status page in Chromium: without and with JavaScript, accessible, light and dark, and inert',
  { skip: missing },
  async () => {
    const { t, path, title } = await hostilePage();
    const server = createServer(createNodeHandler(t.api));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}${path}`;
    await mkdir(SHOTS, { recursive: true });
    try {
      // JavaScript off: the page is whole without it.
      await inChromium({ javaScriptEnabled: false }, async (context) => {
        const page = await context.newPage();
        const response = await page.goto(url);
        assert.equal(response?.status(), 200);
        assert.equal(await page.locator('h1').textContent(), title);
        assert.equal(await page.locator('ol.bars > li').count(), 5 * 90);
        assert.match((await page.locator('.overall').textContent()) ?? '', /System Outage|Service Outage/);
        await page.screenshot({ path: join(SHOTS, 'status-page-no-javascript.png'), fullPage: true });
      });

      for (const colorScheme of ['light', 'dark'] as const) {
        // JavaScript on, and the page's CSP set aside so that axe can run: escaping alone must keep
        // every attack inert.
        await inChromium({ javaScriptEnabled: true, bypassCSP: true, colorScheme }, async (context) => {
          const page = await context.newPage();
          const errors: string[] = [];
          page.on('pageerror', (error) => errors.push(error.message));
          await page.goto(url);
          await page.waitForLoadState('load');
          assert.equal(await page.evaluate(() => (window as { __xss?: number }).__xss), undefined, 'no attack ran');
          assert.equal(await page.locator('script, svg, img').count(), 0, 'no element came out of the owner’s text');
          const handlers = await page.evaluate(() =>
            [...document.querySelectorAll('*')].flatMap((el) =>
              el.getAttributeNames().filter((n) => n.startsWith('on')),
            ),
          );
          assert.deepEqual(handlers, []);
          assert.deepEqual(errors, []);
          assert.equal(await page.evaluate(() => getComputedStyle(document.body).colorScheme === 'light dark'), true);
          await page.addScriptTag({ content: AXE });
          const violations = await page.evaluate(async () => {
            const axe = (window as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
            return (await axe.run()).violations;
          });
          const serious = (violations as AxeViolation[]).filter(
            (v) => v.impact === 'serious' || v.impact === 'critical',
          );
          assert.deepEqual(
            serious.map(
              (v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.slice(0, 3).map((n) => n.target))}`,
            ),
            [],
          );
          await page.screenshot({ path: join(SHOTS, `status-page-${colorScheme}.png`), fullPage: true });
        });
      }

      // With its CSP, as served: nothing of the page's own is refused (the style hash is right).
      await inChromium({ javaScriptEnabled: true }, async (context) => {
        const page = await context.newPage();
        const refused: string[] = [];
        page.on('console', (message) => {
          if (message.text().includes('Content Security Policy')) refused.push(message.text());
        });
        await page.goto(url);
        const bar = await page
          .locator('ol.bars > li')
          .first()
          .evaluate((li) => getComputedStyle(li).display);
        assert.equal(bar, 'list-item');
        const flex = await page
          .locator('ol.bars')
          .first()
          .evaluate((ol) => getComputedStyle(ol).display);
        assert.equal(flex, 'flex', 'the inline style sheet applies under the CSP');
        assert.deepEqual(refused, []);
        assert.equal(await page.evaluate(() => (window as { __xss?: number }).__xss), undefined);
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await t.close();
    }
  },
);
