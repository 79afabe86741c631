/**
 * docs/operations.md, "Metrics": `--metrics-address` on `serve --worker` and on `worker`, scraped
 * over HTTP and read with parse-prometheus-text-format, a parser that is not ours. Every metric
 * the docs list is there, its labels bounded (no id, path or target ever appears), and the API's
 * own port never serves them.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { bootstrapToken, dnsblFlags, runCli, startServe, stopServe } from '../support/cli.ts';
import { startFakeDnsServer, type FakeDnsServer } from '../support/fake-dns-server.ts';
import { freePort } from '../support/ports.ts';
import { waitFor } from '../support/wait-for.ts';
import { startWorker } from '../support/worker-process.ts';
import { startReceiver, type Receiver } from '../webhooks/support.ts';

const LISTED = '93.184.215.14';
let dir: string;
let dns: FakeDnsServer;
let receiver: Receiver;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'monitoring-metrics-'));
  dns = await startFakeDnsServer({ '14.215.184.93.zen.spamhaus.org': { a: ['127.0.0.2'] } });
  receiver = await startReceiver();
  receiver.answer = () => 500;
});
after(async () => {
  await dns.close();
  await receiver.close();
  await rm(dir, { recursive: true, force: true });
});

const ENGINE = () => [...dnsblFlags(dns.address), '--poll-interval', '200'];

interface Scrape {
  families: Map<string, PrometheusFamily>;
  text: string;
}

async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(url);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  return { families: new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family])), text };
}

/**
 * The value of the sample whose labels include `labels`; 0 when none has them. A histogram's is
 * its count, read from its `_count` line: the parser folds a labelled histogram's series into one
 * sample without labels or count, so for those it serves to check the family's type only.
 */
function valueOf({ families, text }: Scrape, name: string, labels: Record<string, string> = {}): number {
  const family = families.get(name);
  assert.ok(family !== undefined, `no metric ${name}`);
  if (family.type === 'HISTOGRAM') {
    const line = text
      .split('\n')
      .find(
        (l) => l.startsWith(`${name}_count`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
      );
    return line === undefined ? 0 : Number(line.split(' ').at(-1));
  }
  const sample = family.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample === undefined ? 0 : Number(sample.value);
}

/**
 * The rules of docs/operations.md, "Metrics", for every scrape: a name ending in `_total` is a
 * counter's (promtool's `check metrics` warns on any other), and every family of our own has
 * samples: a process exposes only the families it fills, and those whose label values are known
 * in advance start at 0. (The library's process metrics may have none: `nodejs_active_requests`
 * while no request of libuv is active.)
 */
function assertWellFormed({ families }: Scrape, what: string): void {
  for (const family of families.values()) {
    if (family.name.endsWith('_total')) {
      assert.equal(family.type, 'COUNTER', `${what}: ${family.name} is a ${family.type}, named as a counter`);
    }
    if (family.name.startsWith('monitoring_')) {
      assert.ok(family.metrics.length > 0, `${what}: ${family.name} has no samples`);
    }
  }
}

async function send(url: string, token: string, body?: unknown): Promise<Response> {
  return fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const METRICS_LINE = /^monitoring-api: metrics on (http:\/\/\S+\/metrics)$/;

it('serve --worker --metrics-address: API, checks, webhooks, resolver and rate limits, with bounded labels', async () => {
  const server = await startServe([
    '--database',
    `sqlite:${join(dir, 'serve.db')}`,
    '--worker',
    '--allow-private-targets',
    '--metrics-address',
    '127.0.0.1:0',
    '--rate-limit',
    '6/600',
    ...ENGINE(),
  ]);
  const url = METRICS_LINE.exec(await server.waitForLine(METRICS_LINE))![1]!;
  const token = bootstrapToken(server)!;
  assert.equal(
    (await send(`${server.url}/webhooks/create`, token, { url: `http://127.0.0.1:${receiver.port}/m` })).status,
    201,
  );
  const created = await send(`${server.url}/blacklist-monitors/create`, token, {
    target_type: 'ip',
    target_value: LISTED,
  });
  const { data: monitor } = (await created.json()) as { data: { id: number } };
  assert.equal((await send(`${server.url}/me`, token)).status, 200);
  assert.equal((await send(`${server.url}/blacklist-monitors/results?id=${monitor.id}`, token)).status, 200);
  assert.equal((await send(`${server.url}/nowhere/${monitor.id}`, token)).status, 404);
  // The sixth request of the window is the last allowed; the seventh is refused. One trailing
  // slash is the same route (docs/contract.md §1), and counted as it.
  assert.equal((await send(`${server.url}/me/`, token)).status, 200);
  assert.equal((await send(`${server.url}/me`, token)).status, 429);
  await waitFor("the monitor's check and its event's first delivery", () => receiver.received.length > 0);

  let scraped = await scrape(url);
  await waitFor('the delivery to be counted', async () => {
    scraped = await scrape(url);
    return valueOf(scraped, 'monitoring_webhook_deliveries_total', { outcome: 'retrying' }) >= 1;
  });
  const families = scraped.families;
  assertWellFormed(scraped, 'serve --worker');
  assert.equal(valueOf(scraped, 'monitoring_api_requests_total', { method: 'GET', route: '/me', status: '200' }), 2);
  assert.equal(valueOf(scraped, 'monitoring_api_requests_total', { method: 'GET', route: '/me', status: '429' }), 1);
  assert.equal(
    valueOf(scraped, 'monitoring_api_requests_total', { method: 'other', route: 'other', status: '404' }),
    1,
  );
  assert.equal(
    valueOf(scraped, 'monitoring_api_request_duration_seconds', { method: 'GET', route: '/me' }),
    3,
    'a histogram: its count',
  );
  assert.equal(valueOf(scraped, 'monitoring_api_rate_limit_decisions_total', { limit: 'key', decision: 'allowed' }), 6);
  assert.equal(valueOf(scraped, 'monitoring_api_rate_limit_decisions_total', { limit: 'key', decision: 'refused' }), 1);
  assert.equal(valueOf(scraped, 'monitoring_checks_total', { kind: 'blacklist_monitor', verdict: 'ok' }), 1);
  assert.equal(
    valueOf(scraped, 'monitoring_probe_results_total', { kind: 'blacklist_monitor', probe: 'dnsbl', verdict: 'ok' }),
    1,
  );
  assert.equal(valueOf(scraped, 'monitoring_scheduling_lag_seconds', { kind: 'blacklist_monitor' }), 1);
  assert.ok(valueOf(scraped, 'monitoring_claim_duration_seconds', { kind: 'blacklist_monitor' }) >= 1);
  assert.equal(
    valueOf(scraped, 'monitoring_write_duration_seconds', { kind: 'blacklist_monitor', outcome: 'written' }),
    1,
  );
  assert.ok(valueOf(scraped, 'monitoring_webhook_delivery_duration_seconds') >= 1);
  assert.equal(valueOf(scraped, 'monitoring_resolver_up'), 1);
  assert.equal(valueOf(scraped, 'monitoring_checks_in_flight'), 0);
  assert.equal(valueOf(scraped, 'monitoring_leases_held', { kind: 'blacklist_monitor' }), 0);
  assert.equal(families.get('monitoring_api_requests_total')?.type, 'COUNTER');
  assert.equal(families.get('monitoring_scheduling_lag_seconds')?.type, 'HISTOGRAM');
  assert.ok(families.has('process_cpu_seconds_total'), "the process's own metrics too");
  // Bounded labels: no id, path or target in any label value.
  for (const family of families.values()) {
    for (const sample of family.metrics) {
      for (const value of Object.values(sample.labels ?? {})) {
        assert.ok(
          !value.includes(String(monitor.id)) || /^[0-9.+Inf]+$/.test(value) || family.name.startsWith('nodejs_'),
          `${family.name} ${JSON.stringify(sample.labels)}`,
        );
        assert.ok(
          !value.includes(LISTED) && !value.includes('nowhere'),
          `${family.name} ${JSON.stringify(sample.labels)}`,
        );
      }
    }
  }
  // The API's port has no metrics.
  assert.equal((await fetch(`${new URL(server.url).origin}/metrics`)).status, 404);
  assert.equal(await stopServe(server), 0);
});

it("worker --metrics-address: the engine's metrics on their own listener", async () => {
  const database = `sqlite:${join(dir, 'worker.db')}`;
  const server = await startServe(['--database', database]);
  const token = bootstrapToken(server)!;
  const worker = await startWorker(['--database', database, '--metrics-address', '127.0.0.1:0', ...ENGINE()]);
  try {
    const url = METRICS_LINE.exec(worker.stdout.find((l) => METRICS_LINE.test(l)) ?? '')?.[1];
    assert.ok(url !== undefined, worker.stdout.join('\n'));
    // Before any check: a worker answers no API request, so it has no API metric; the counters
    // whose labels are known start at 0.
    const fresh = await scrape(url);
    assert.deepEqual(
      [...fresh.families.keys()].filter((name) => name.startsWith('monitoring_api_')),
      [],
      'a worker has no API to count',
    );
    const series = (name: string) =>
      fresh.families.get(name)?.metrics.map((sample) => `${JSON.stringify(sample.labels)} ${sample.value}`);
    assert.deepEqual(series('monitoring_lost_checks_total'), [
      '{"kind":"device"} 0',
      '{"kind":"blacklist_monitor"} 0',
      '{"kind":"heartbeat"} 0',
    ]);
    assert.deepEqual(series('monitoring_webhook_deliveries_total'), [
      '{"outcome":"delivered"} 0',
      '{"outcome":"retrying"} 0',
      '{"outcome":"given_up"} 0',
    ]);
    assert.equal(
      (
        await send(`${server.url}/blacklist-monitors/create`, token, {
          target_type: 'ip',
          target_value: '93.184.215.15',
        })
      ).status,
      201,
    );
    let scraped = fresh;
    await waitFor('the check to be counted', async () => {
      scraped = await scrape(url);
      return valueOf(scraped, 'monitoring_checks_total', { kind: 'blacklist_monitor', verdict: 'ok' }) === 1;
    });
    assertWellFormed(scraped, 'worker');
    assert.equal((await fetch(url.replace('/metrics', '/other'))).status, 404);
  } finally {
    worker.child.kill('SIGTERM');
    assert.equal(await worker.exited, 0);
    assert.equal(await stopServe(server), 0);
  }
});

it("--metrics-address on the API's port, or a bad one, exits 2", async () => {
  const port = await freePort();
  const same = await runCli([
    'serve',
    '--port',
    String(port),
    '--metrics-address',
    `127.0.0.1:${port}`,
    '--database',
    `sqlite:${join(dir, 'x.db')}`,
  ]);
  assert.equal(same.code, 2);
  assert.match(same.stderr, /--metrics-address must not be the API's port/);
  const bad = await runCli(['worker', '--metrics-address', 'everywhere']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--metrics-address must be HOST:PORT/);
});
