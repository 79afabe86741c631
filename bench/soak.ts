/**
 * A worker's memory over time (docs/operations.md, "A worker's memory"): three `monitoring-api
 * worker` processes (locations a, b, c) on a PostgreSQL database of their own, checking devices
 * against HTTP and TCP servers on loopback addresses and blacklist monitors against zones of a
 * fake DNS server on 127.0.0.1. Nothing leaves the machine and no real DNS server is asked.
 *
 *   node bench/soak.ts [--records 900] [--minutes 65] [--sample-s 60] [--snapshots 5,30,60] [--out DIR]
 *                      [--cli dist/cli/main.js] [--node-flags=--max-old-space-size=64]
 *
 * Every `--sample-s` it reads each worker's `/metrics` (resident set, V8 heap, external memory,
 * checks written) and appends a JSON line to `DIR/samples.jsonl`; at each minute of `--snapshots`
 * worker a writes a heap snapshot into DIR (SIGUSR2; read them with bench/heap-summary.ts). At the
 * end the workers are stopped and the database dropped. Heap snapshots are large: keep DIR out of
 * the repository.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, openSync, closeSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { openKyselyStore } from '../stores/kysely/index.ts';
import type { NewDevice } from '../core/index.ts';
import { benchDevice } from './engine-records.ts';
import { startFakeDnsServer, type FakeDnsServer } from '../test/support/fake-dns-server.ts';
import { ROOT } from '../test/support/root.ts';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '900' },
    minutes: { type: 'string', default: '65' },
    'sample-s': { type: 'string', default: '60' },
    snapshots: { type: 'string', default: '5,30,60' },
    out: { type: 'string', default: `/tmp/soak-${process.pid}` },
    cli: { type: 'string', default: 'dist/cli/main.js' },
    /** Node flags for the workers besides the snapshot signal, e.g. `--max-old-space-size=64`. */
    'node-flags': { type: 'string', default: '' },
  },
});
const RECORDS = Number(values.records);
const MINUTES = Number(values.minutes);
const SAMPLE_MS = Number(values['sample-s']) * 1000;
const SNAPSHOT_MINUTES = values.snapshots.split(',').filter(Boolean).map(Number);
const OUT = values.out;
/** The command the workers run: the built one by default (`npm run build`), as it ships. */
const CLI = join(ROOT, values.cli);
mkdirSync(OUT, { recursive: true });

const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE = `soak_${process.pid}`;
const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${DATABASE}`;
const IP_ZONES = ['bl1.soak.test', 'bl2.soak.test', 'bl3.soak.test'];
const DOMAIN_ZONES = ['dbl1.soak.test'];
const LOCATIONS = ['a', 'b', 'c'] as const;
/** How often the flapping targets (an HTTP server, some DNSBL listings) change their answer. */
const FLAP_MS = 4 * 60_000;

const cleanups: (() => Promise<unknown>)[] = [];
async function cleanUp(): Promise<void> {
  for (const clean of cleanups.splice(0).reverse()) await clean().catch((error: unknown) => console.error(error));
}

async function admin(text: string): Promise<void> {
  const client = new pg.Client(ADMIN_URL);
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

function listen(server: HttpServer | TcpServer, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

function closeServer(server: HttpServer | TcpServer): Promise<void> {
  if ('closeAllConnections' in server) server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

interface Target {
  host: string;
  port: number;
}

/** HTTP servers on 127.0.0.1 to .8, and one on .9 that answers 503 every other period. */
async function startHttpTargets(): Promise<{ steady: Target[]; flapping: Target }> {
  const steady: Target[] = [];
  for (let i = 1; i <= 8; i++) {
    const server = createHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n'));
    const host = `127.0.0.${i}`;
    steady.push({ host, port: await listen(server, host) });
    cleanups.push(() => closeServer(server));
  }
  const started = Date.now();
  const flapper = createHttpServer((_req, res) => {
    const down = Math.floor((Date.now() - started) / FLAP_MS) % 2 === 1;
    res.writeHead(down ? 503 : 200).end(down ? 'down\n' : 'ok\n');
  });
  const flapping = { host: '127.0.0.9', port: await listen(flapper, '127.0.0.9') };
  cleanups.push(() => closeServer(flapper));
  return { steady, flapping };
}

/** TCP servers on 127.0.0.10 to .13 that accept and close. */
async function startTcpTargets(): Promise<Target[]> {
  const targets: Target[] = [];
  for (let i = 10; i <= 13; i++) {
    const server = createTcpServer((socket) => socket.end());
    const host = `127.0.0.${i}`;
    targets.push({ host, port: await listen(server, host) });
    cleanups.push(() => closeServer(server));
  }
  return targets;
}

/** The webhook receiver: counts deliveries, answers 204. */
async function startReceiver(): Promise<{ url: string; received: () => number }> {
  let received = 0;
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  const port = await listen(server, '127.0.0.1');
  cleanups.push(() => closeServer(server));
  return { url: `http://127.0.0.1:${port}/hook`, received: () => received };
}

function device(target: Target & { type: 'ip' | 'domain' }, kind: 'http' | 'tcp'): NewDevice {
  const { id: _id, ...made } = benchDevice(0, kind, target.port, 30);
  return {
    ...made,
    target_type: target.type,
    target_value: target.host,
    created_at: new Date().toISOString(),
  };
}

/** The reversed octets of an IPv4 address, as a DNSBL query name starts. */
const reversed = (ip: string) => ip.split('.').reverse().join('.');

/**
 * The records: a tenth blacklist monitors (IP targets in 192.0.2.0/24 and 198.51.100.0/24, a few
 * domains), the rest devices at 30 s: HTTP and TCP on loopback addresses, by address and by a name
 * the fake DNS server resolves, a few on the flapping server, and some checked from all three
 * locations with a quorum of two.
 */
async function seed(dns: FakeDnsServer, http: Target[], flapping: Target, tcp: Target[], hookUrl: string) {
  const { store } = await openKyselyStore(DATABASE_URL);
  try {
    const user = await store.createUser({ name: 'soak', created_at: new Date().toISOString() });
    const monitors = Math.round(RECORDS / 10);
    const devices = RECORDS - monitors;
    const flappingListings: string[] = [];
    for (let i = 0; i < monitors; i++) {
      const domain = i % 10 === 9;
      const ip = `${i < 250 ? '192.0.2' : '198.51.100'}.${(i % 250) + 1}`;
      const target = domain ? `m${i}.soak.test` : ip;
      // Every fifth IP is listed on bl1; every seventh flaps on bl2.
      if (!domain && i % 5 === 0) dns.set(`${reversed(ip)}.bl1.soak.test`, { a: ['127.0.0.2'] });
      if (!domain && i % 7 === 0) flappingListings.push(`${reversed(ip)}.bl2.soak.test`);
      await store.createBlacklistMonitor(user.id, {
        target_type: domain ? 'domain' : 'ip',
        target_value: target,
        is_enabled: true,
        last_status: null,
        last_checked_at: null,
        listed_on: [],
        created_at: new Date().toISOString(),
        check_interval_s: 300,
        failed_zones: [],
        zones: null,
        count_policy_listings: false,
        listings: [],
        rdns: null,
      });
    }
    for (let i = 0; i < devices; i++) {
      const slot = i % 20;
      let made: NewDevice;
      if (slot === 0) made = device({ ...flapping, type: 'ip' }, 'http');
      else if (slot < 5) {
        const t = tcp[i % tcp.length]!;
        const name = `t${i}.soak.test`;
        dns.set(name, { a: [t.host] });
        made = device({ ...t, host: slot === 1 ? name : t.host, type: slot === 1 ? 'domain' : 'ip' }, 'tcp');
      } else if (slot < 10) {
        const t = http[i % http.length]!;
        const name = `d${i}.soak.test`;
        dns.set(name, { a: [t.host] });
        made = device({ ...t, host: name, type: 'domain' }, 'http');
      } else made = device({ ...http[i % http.length]!, type: 'ip' }, 'http');
      // Distinct identities: the port of a device on a shared server is its own only by scheme,
      // so loopback devices by address differ by target (the name) or are made distinct below.
      if (slot === 19) {
        made.check_locations = [...LOCATIONS];
        made.quorum = 2;
      }
      const created = await store.createDevice(user.id, made);
      if ('duplicateOf' in created) {
        // The same server by address again: give it a name of its own instead.
        const name = `x${i}.soak.test`;
        dns.set(name, { a: [made.target_value] });
        await store.createDevice(user.id, { ...made, target_type: 'domain', target_value: name });
      }
    }
    await store.createWebhook(user.id, {
      url: hookUrl,
      events: ['device.down', 'device.up', 'device.location_failing', 'blacklist.listed', 'blacklist.delisted'],
      is_enabled: true,
      created_at: new Date().toISOString(),
      last_delivery_at: null,
      last_delivery_status: null,
      last_delivery_error: null,
      failing_since: null,
      secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
    });
    return { monitors, devices, flappingListings };
  } finally {
    await store.close();
  }
}

interface Worker {
  location: string;
  child: ChildProcess;
  metricsUrl: string;
  exited: Promise<number | null>;
}

async function startWorker(location: string, dns: FakeDnsServer): Promise<Worker> {
  const log = join(OUT, `worker-${location}.log`);
  const out = openSync(log, 'w');
  const args = [
    '--heapsnapshot-signal=SIGUSR2',
    ...values['node-flags'].split(' ').filter(Boolean),
    CLI,
    'worker',
    '--database',
    DATABASE_URL,
    '--location',
    location,
    '--worker-id',
    `soak-${location}`,
    '--allow-private-targets',
    '--dns-server',
    dns.address,
    ...IP_ZONES.flatMap((zone) => ['--dnsbl-zone', zone]),
    ...DOMAIN_ZONES.flatMap((zone) => ['--dnsbl-domain-zone', zone]),
    '--metrics-address',
    '127.0.0.1:0',
  ];
  const child = spawn(process.execPath, args, {
    cwd: OUT,
    env: { ...process.env, DATABASE_URL: '' },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  cleanups.push(async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  });
  for (let i = 0; i < 600; i++) {
    const match = /metrics on (\S+)/.exec(readFileSync(log, 'utf8'));
    if (match !== null) return { location, child, metricsUrl: match[1]!, exited };
    if (child.exitCode !== null) break;
    await delay(100);
  }
  throw new Error(`worker ${location} did not start: ${readFileSync(log, 'utf8')}`);
}

const SAMPLED = [
  'process_resident_memory_bytes',
  'nodejs_heap_size_used_bytes',
  'nodejs_heap_size_total_bytes',
  'nodejs_external_memory_bytes',
] as const;

/** The sampled gauges and the checks written so far, from one worker's `/metrics`. */
async function sample(worker: Worker): Promise<Record<string, number>> {
  const text = await (await fetch(worker.metricsUrl)).text();
  const out: Record<string, number> = { checks: 0 };
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const [name, value] = [line.slice(0, line.lastIndexOf(' ')), Number(line.slice(line.lastIndexOf(' ') + 1))];
    if ((SAMPLED as readonly string[]).includes(name)) out[name] = value;
    if (name.startsWith('monitoring_checks_total{')) out.checks! += value;
  }
  return out;
}

async function main(): Promise<void> {
  await admin(`create database ${DATABASE}`);
  cleanups.push(() => admin(`drop database if exists ${DATABASE} with (force)`));
  const migrate = spawn(process.execPath, [CLI, 'migrate', '--database', DATABASE_URL], {
    stdio: 'inherit',
  });
  if ((await new Promise((resolve) => migrate.once('exit', resolve))) !== 0) throw new Error('migrate failed');

  const dns = await startFakeDnsServer();
  cleanups.push(() => dns.close());
  const { steady, flapping } = await startHttpTargets();
  const tcp = await startTcpTargets();
  const receiver = await startReceiver();
  const seeded = await seed(dns, steady, flapping, tcp, receiver.url);
  console.log(`seeded ${seeded.devices} devices and ${seeded.monitors} blacklist monitors into ${DATABASE}`);

  const flap = setInterval(() => {
    const listed = Math.floor(Date.now() / FLAP_MS) % 2 === 0;
    for (const name of seeded.flappingListings) dns.set(name, listed ? { a: ['127.0.0.3'] } : 'nxdomain');
  }, 15_000);
  cleanups.push(async () => clearInterval(flap));

  const workers: Worker[] = [];
  for (const location of LOCATIONS) workers.push(await startWorker(location, dns));
  const started = Date.now();
  const snapshots = [...SNAPSHOT_MINUTES];
  for (;;) {
    const elapsedS = Math.round((Date.now() - started) / 1000);
    const line: Record<string, unknown> = { t_s: elapsedS, deliveries: receiver.received() };
    for (const worker of workers) line[worker.location] = await sample(worker);
    appendFileSync(join(OUT, 'samples.jsonl'), JSON.stringify(line) + '\n');
    const a = line.a as Record<string, number>;
    console.log(
      `${(elapsedS / 60).toFixed(1)} min: a rss ${(a.process_resident_memory_bytes! / 2 ** 20).toFixed(1)} MiB, ` +
        `heap ${(a.nodejs_heap_size_used_bytes! / 2 ** 20).toFixed(1)}/${(a.nodejs_heap_size_total_bytes! / 2 ** 20).toFixed(1)} MiB, ` +
        `checks ${a.checks}, deliveries ${receiver.received()}`,
    );
    if (snapshots.length > 0 && elapsedS >= snapshots[0]! * 60) {
      snapshots.shift();
      workers[0]!.child.kill('SIGUSR2');
      console.log(`heap snapshot of worker a asked at ${(elapsedS / 60).toFixed(1)} min`);
    }
    if (elapsedS >= MINUTES * 60) break;
    await delay(SAMPLE_MS - ((Date.now() - started) % SAMPLE_MS));
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`${signal}: stopping the workers and dropping ${DATABASE}`);
    void cleanUp().then(() => process.exit(1));
  });
}
main().then(
  () => cleanUp(),
  async (error: unknown) => {
    console.error(error);
    await cleanUp();
    process.exitCode = 1;
  },
);
