/**
 * `npm run bench`: the standalone server against a bare node:http server that answers the same
 * bytes, and Hono, each loaded in turn from this process (a second process to the servers) with
 * autocannon. Figures are ratios to bare node:http measured in the same run, median of rounds.
 *
 *   node --import tsx bench/run.ts [--rounds N] [--seconds S] [--smoke]
 *
 * `--smoke` runs every step for a fraction of a second, so the test suite can keep this script
 * from rotting without timing anything.
 */
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createTestDatabase } from '../test/support/postgres.ts';
import { measure, type LoadOptions } from './load.ts';
import { cli, startServer, type RunningServer } from './processes.ts';
import { seedDevices } from './seed.ts';
import { streamedList } from './streamed-list.ts';

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '3' },
    smoke: { type: 'boolean', default: false },
  },
});
const smoke = flags.smoke!;
const rounds = smoke ? 1 : Number(flags.rounds);
const seconds = smoke ? 0.3 : Number(flags.seconds);
const TSX = ['--import', 'tsx'];

const work = await mkdtemp(join(tmpdir(), 'monitoring-bench-'));
const started: RunningServer[] = [];
const rows: string[][] = [];
const report = (...cells: (string | number)[]) => {
  const row = cells.map(String);
  rows.push(row);
  console.log(row.join('  '));
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Loads each server in turn, round after round, so drift in the machine hits all alike. */
async function compare(targets: Record<string, LoadOptions>): Promise<Record<string, number>> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, options] of Object.entries(targets)) samples[name]!.push(await measure({ ...options, seconds }));
  }
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
}

async function serveApi(database: string, extra: string[] = []): Promise<{ server: RunningServer; token: string }> {
  const user = JSON.parse(await cli(['users', 'create', '--json', '--database', database])) as { user_id: number };
  const key = JSON.parse(await cli(['keys', 'create', '--user', String(user.user_id), '--json', '--database', database])) as { token: string };
  // The compiled package, as an operator runs it (`npm run build` first, below).
  const server = await startServer(process.execPath, ['dist/cli/main.js', 'serve', '--port', '0', '--database', database,
    '--rate-limit', '1000000000/60', ...extra]);
  started.push(server);
  return { server, token: key.token };
}

async function bare(response: { status: number; headers: Record<string, string>; body: string }, name: string): Promise<RunningServer> {
  const file = join(work, `${name}.json`);
  writeFileSync(file, JSON.stringify(response));
  const server = await startServer(process.execPath, [...TSX, 'bench/servers/bare.ts'], { BENCH_RESPONSE: file });
  started.push(server);
  return server;
}

async function capture(url: string, token: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) if (!['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name)) headers[name] = value;
  return { status: response.status, headers, body: await response.text() };
}

try {
  await cli(['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], true);
  console.log(`monitoring-api bench: ${rounds} round(s) of ${seconds}s per target, median; load from a second process (autocannon, 32 connections)`);
  const sqlite = `sqlite:${join(work, 'bench.db')}`;
  const api = await serveApi(sqlite);
  const auth = { authorization: `Bearer ${api.token}` };

  // 1. GET /v1/me with real key authentication.
  const meBare = await bare(await capture(`${api.server.url}/me`, api.token), 'me');
  const hono = await startServer(process.execPath, [...TSX, 'bench/servers/hono.ts']);
  started.push(hono);
  const me = await compare({
    bare: { url: `${meBare.url}/me` },
    hono: { url: `${hono.url}/me` },
    api: { url: `${api.server.url}/me`, headers: auth },
  });
  report('GET /v1/me', 'bare', Math.round(me.bare!), '1.00');
  report('GET /v1/me', 'hono (constant, no auth)', Math.round(me.hono!), (me.hono! / me.bare!).toFixed(2));
  report('GET /v1/me', 'monitoring-api (SQLite, key auth)', Math.round(me.api!), (me.api! / me.bare!).toFixed(2), 'target >= 0.85');

  // 2. GET /v1/devices with 50 records on SQLite.
  for (let i = 0; i < 50; i++) {
    await fetch(`${api.server.url}/devices/create`, {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ target_type: 'domain', target_value: `d${i}.example.com` }),
    });
  }
  const listBare = await bare(await capture(`${api.server.url}/devices`, api.token), 'devices');
  const list = await compare({ bare: { url: `${listBare.url}/devices` }, api: { url: `${api.server.url}/devices`, headers: auth } });
  report('GET /v1/devices (50, SQLite)', 'bare', Math.round(list.bare!), '1.00');
  report('GET /v1/devices (50, SQLite)', 'monitoring-api', Math.round(list.api!), (list.api! / list.bare!).toFixed(2), 'target >= 0.60');

  // 3. POST /v1/devices/create on PostgreSQL at concurrency 32 against raw pg INSERTs.
  const pgDb = await createTestDatabase();
  if ('skip' in pgDb) {
    report('POST /v1/devices/create (PostgreSQL)', 'skipped', pgDb.skip ?? '');
  } else {
    try {
      const pgApi = await serveApi(pgDb.url, ['--rate-limit', '1000000000/60']);
      let n = 0;
      const rawRates: number[] = [];
      const apiRates: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const raw = JSON.parse(await cli(['bench/pg-insert-loop.ts', pgDb.url, '10', '32', String(seconds), '1'], true)) as { perSecond: number };
        rawRates.push(raw.perSecond);
        apiRates.push(await measure({
          url: `${pgApi.server.url}/devices/create`, seconds, method: 'POST',
          headers: { ...auth, authorization: `Bearer ${pgApi.token}`, 'content-type': 'application/json' },
          body: () => JSON.stringify({ target_type: 'domain', target_value: `c${round}-${n++}.example.com` }),
          expectStatus: 201,
        }));
      }
      const raw = median(rawRates);
      const created = median(apiRates);
      report('POST /v1/devices/create (PostgreSQL, c=32, pool 10)', 'raw pg INSERT loop', Math.round(raw), '1.00');
      report('POST /v1/devices/create (PostgreSQL, c=32, pool 10)', 'monitoring-api', Math.round(created), (created / raw).toFixed(2), 'target >= 0.80');
    } finally {
      await pgDb.drop();
    }
  }

  // 4. A streamed list of 10k and 100k devices: peak RSS growth of the server, time.
  const big = smoke ? [1_000, 5_000] : [10_000, 100_000];
  const bigDb = `sqlite:${join(work, 'big.db')}`;
  const streamed = await serveApi(bigDb);
  const owners = await seedDevices(bigDb, big);
  const times: number[] = [];
  for (const [i, count] of big.entries()) {
    const key = JSON.parse(await cli(['keys', 'create', '--user', String(owners[i]), '--json', '--database', bigDb])) as { token: string };
    const result = await streamedList(`${streamed.server.url}/devices`, key.token, streamed.server.pid);
    if (result.records !== count) throw new Error(`streamed ${result.records} records, expected ${count}`);
    times.push(result.ms);
    report(`GET /v1/devices (${count} records, streamed)`, `${result.ms.toFixed(0)} ms`, `peak RSS growth ${(result.rssGrowth / 1048576).toFixed(1)} MB`, 'target < 64 MB');
  }
  report('streamed list time ratio', `${big[1]! / big[0]!}x records`, `${(times[1]! / times[0]!).toFixed(1)}x time`, 'linear ~ equal');
} finally {
  await Promise.all(started.map((server) => server.stop()));
  await rm(work, { recursive: true, force: true });
}
