/**
 * docs/engine.md, "Checks on demand" and "What a listing means", as an operator runs them:
 * `serve --worker` on SQLite, DNSBL zones served by a fake DNS server on 127.0.0.1, one of them
 * described by `--dnsbl-zone-info`; and `serve` alone told the zones its workers ask.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import type { BlacklistMonitor, DnsblResult } from '../../core/index.ts';
import { bootstrapToken, startServe, stopServe } from '../support/cli.ts';
import { startFakeDnsServer, type FakeDnsServer } from '../support/fake-dns-server.ts';
import { waitFor } from '../support/wait-for.ts';

const OWN_ZONE = 'bl.own-list.test';

let dir: string;
let dns: FakeDnsServer;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'monitoring-check-on-demand-'));
  dns = await startFakeDnsServer({
    '14.215.184.93.zen.spamhaus.org': { a: ['127.0.0.11'] },
    [`14.215.184.93.${OWN_ZONE}`]: { a: ['127.0.0.3'] },
    '14.215.184.93.in-addr.arpa': { ptr: ['mail.own-list.test.'] },
  });
});
after(async () => {
  await dns.close();
  await rm(dir, { recursive: true, force: true });
});

async function call<T>(url: string, token: string, path: string, init: { method?: string; body?: unknown } = {}) {
  const response = await fetch(`${url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${token}`,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const body = (await response.json()) as { data?: T; error?: { code: string; details?: { message: string }[] } };
  return { status: response.status, headers: response.headers, body };
}

it('serve --worker: a check on demand shows in the results within seconds; once a minute; the listing says what it means', async () => {
  const info = join(dir, 'zones.json');
  await writeFile(
    info,
    JSON.stringify({
      [OWN_ZONE]: {
        name: 'Own list',
        operator: 'Us',
        delist_url: 'https://own-list.test/remove',
        codes: { '127.0.0.3': { meaning: 'hit our traps', policy: false } },
      },
    }),
  );
  const server = await startServe([
    '--database',
    `sqlite:${join(dir, 'serve-worker.db')}`,
    '--worker',
    '--poll-interval',
    '200',
    '--dns-server',
    dns.address,
    '--dnsbl-zone',
    'zen.spamhaus.org',
    '--dnsbl-zone',
    OWN_ZONE,
    '--dnsbl-zone-info',
    info,
  ]);
  try {
    const token = bootstrapToken(server)!;
    const created = await call<BlacklistMonitor>(server.url, token, '/blacklist-monitors/create', {
      method: 'POST',
      body: { target_type: 'ip', target_value: '93.184.215.14' },
    });
    assert.equal(created.status, 201);
    const id = created.body.data!.id;
    const results = async () =>
      (await call<DnsblResult[]>(server.url, token, `/blacklist-monitors/results?id=${id}`)).body.data!;
    await waitFor('the first check', async () => (await results()).length === 2);

    const monitor = (await call<BlacklistMonitor[]>(server.url, token, '/blacklist-monitors')).body.data!.find(
      (m) => m.id === id,
    )!;
    // PBL alone is a policy listing: shown, not counted. The operator's own zone, described by its file, counts.
    assert.deepEqual(
      [monitor.last_status, monitor.listed_on, monitor.rdns],
      ['listed', [OWN_ZONE], 'mail.own-list.test'],
    );
    assert.deepEqual(
      monitor.listings.map(({ zone, meaning, policy, delist_url }) => [zone, meaning, policy, delist_url]),
      [
        [OWN_ZONE, 'hit our traps', false, 'https://own-list.test/remove'],
        [
          'zen.spamhaus.org',
          'PBL: a range Spamhaus says should not send mail directly (policy, not spam)',
          true,
          'https://check.spamhaus.org/',
        ],
      ],
    );

    const asked = await call<BlacklistMonitor>(server.url, token, `/blacklist-monitors/check?id=${id}`, {
      method: 'POST',
    });
    assert.equal(asked.status, 202);
    assert.equal(asked.body.data!.id, id);
    const again = await call(server.url, token, `/blacklist-monitors/check?id=${id}`, { method: 'POST' });
    assert.equal(again.status, 429);
    assert.equal(again.body.error!.code, 'check_too_soon');
    const retryAfter = Number(again.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${retryAfter}`);
    // The monitor's interval is an hour: only the request makes the second check.
    await waitFor('the check asked for', async () => (await results()).length === 4);
  } finally {
    assert.equal(await stopServe(server), 0);
  }
});

it("serve without --worker takes the zones its workers ask: a monitor's zones are held to them", async () => {
  const server = await startServe([
    '--database',
    `sqlite:${join(dir, 'serve.db')}`,
    '--dnsbl-zone',
    OWN_ZONE,
    '--dnsbl-domain-zone',
    'dbl.own-list.test',
  ]);
  try {
    const token = bootstrapToken(server)!;
    const ok = await call<BlacklistMonitor>(server.url, token, '/blacklist-monitors/create', {
      method: 'POST',
      body: { target_type: 'ip', target_value: '93.184.215.14', zones: [OWN_ZONE] },
    });
    assert.deepEqual([ok.status, ok.body.data?.zones], [201, [OWN_ZONE]]);
    const refused = await call(server.url, token, '/blacklist-monitors/create', {
      method: 'POST',
      body: { target_type: 'ip', target_value: '93.184.215.15', zones: ['zen.spamhaus.org'] },
    });
    assert.equal(refused.status, 400);
    assert.match(
      refused.body.error!.details![0]!.message,
      /"zen\.spamhaus\.org", which is not one of this installation's DNSBL zones for IP targets \(bl\.own-list\.test\)/,
    );
    // No worker: a check on demand makes it due, and nothing checks it.
    const asked = await call(server.url, token, `/blacklist-monitors/check?id=${ok.body.data!.id}`, { method: 'POST' });
    assert.equal(asked.status, 202);
    const paused = await call<BlacklistMonitor>(server.url, token, '/blacklist-monitors/create', {
      method: 'POST',
      body: { target_type: 'ip', target_value: '93.184.215.16', is_enabled: false },
    });
    const refusedPaused = await call(server.url, token, `/blacklist-monitors/check?id=${paused.body.data!.id}`, {
      method: 'POST',
    });
    assert.deepEqual([refusedPaused.status, refusedPaused.body.error?.code], [409, 'record_paused']);
  } finally {
    assert.equal(await stopServe(server), 0);
  }
});
