/**
 * docs/operations.md, "Health": `serve` answers /healthz and /readyz beside the API, without a
 * key and outside its base path; a worker answers them on --health-address. Ready means the
 * database answers and has every migration applied; the answers tell nothing else.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DatabaseSync } from 'node:sqlite';
import { runCli, startServe, stopServe } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';
import { startWorker } from '../support/worker-process.ts';
import { waitFor } from '../support/wait-for.ts';

let dir: string;
before(async () => (dir = await mkdtemp(join(tmpdir(), 'monitoring-health-'))));
after(() => rm(dir, { recursive: true, force: true }));

const OK = '{"status":"ok"}';
const UNAVAILABLE = '{"status":"unavailable"}';

async function get(url: string): Promise<{ status: number; body: string; type: string | null; cache: string | null }> {
  const response = await fetch(url);
  return {
    status: response.status,
    body: await response.text(),
    type: response.headers.get('content-type'),
    cache: response.headers.get('cache-control'),
  };
}

/** The server's origin: its base URL without the base path. */
const originOf = (base: string) => new URL(base).origin;

describe('serve: /healthz and /readyz', () => {
  it('answer without a key, outside the base path; /readyz is 503 while a migration is missing', async () => {
    const file = join(dir, 'serve.db');
    const server = await startServe(['--database', `sqlite:${file}`]);
    const origin = originOf(server.url);
    assert.deepEqual(await get(`${origin}/healthz`), {
      status: 200,
      body: OK,
      type: 'application/json; charset=utf-8',
      cache: 'no-store',
    });
    assert.deepEqual(await get(`${origin}/readyz`), {
      status: 200,
      body: OK,
      type: 'application/json; charset=utf-8',
      cache: 'no-store',
    });
    assert.equal((await fetch(`${origin}/readyz`, { method: 'HEAD' })).status, 200);
    // Inside the base path they are the API's unknown routes, behind its key like every route.
    assert.equal((await get(`${server.url}/healthz`)).status, 401);

    // A database whose schema is behind this version (a migration rolled back by hand).
    const db = new DatabaseSync(file);
    db.exec('BEGIN IMMEDIATE');
    const [last] = db.prepare('select name from kysely_migration order by name desc limit 1').all() as {
      name: string;
    }[];
    db.prepare('delete from kysely_migration where name = ?').run(last!.name);
    db.exec('COMMIT');
    assert.deepEqual(await get(`${origin}/readyz`), {
      status: 503,
      body: UNAVAILABLE,
      type: 'application/json; charset=utf-8',
      cache: 'no-store',
    });
    assert.equal((await get(`${origin}/healthz`)).status, 200, 'the process is still up');
    db.prepare("insert into kysely_migration (name, timestamp) values (?, '2026-01-01T00:00:00.000Z')").run(last!.name);
    db.close();
    assert.equal((await get(`${origin}/readyz`)).status, 200);
    assert.equal(await stopServe(server), 0);
  });
});

describe('worker --health-address', () => {
  it('answers /healthz and /readyz on its own listener, and 404 for anything else', async () => {
    const worker = await startWorker([
      '--database',
      `sqlite:${join(dir, 'worker.db')}`,
      '--health-address',
      '127.0.0.1:0',
      '--dnsbl-zone',
      'zen.spamhaus.org',
      '--dns-server',
      '127.0.0.1:9',
    ]);
    const line = worker.stdout.find((l) => /^monitoring-api: health checks on /.test(l));
    assert.ok(line !== undefined, worker.stdout.join('\n'));
    const origin = /on (http:\/\/\S+)\/healthz/.exec(line)![1]!;
    assert.deepEqual(await get(`${origin}/healthz`), {
      status: 200,
      body: OK,
      type: 'application/json; charset=utf-8',
      cache: 'no-store',
    });
    assert.deepEqual(await get(`${origin}/readyz`), {
      status: 200,
      body: OK,
      type: 'application/json; charset=utf-8',
      cache: 'no-store',
    });
    assert.equal((await get(`${origin}/v1/me`)).status, 404);
    worker.child.kill('SIGTERM');
    assert.equal(await worker.exited, 0, worker.stderr.join('\n'));
  });

  it('a bad --health-address exits 2', async () => {
    const result = await runCli(['worker', '--health-address', 'nowhere']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--health-address must be HOST:PORT/);
  });
});

const pg: TestDatabase = await createTestDatabase();

suiteOrSkip('readiness on PostgreSQL', pg.skip, {}, () => {
  after(async () => {
    if (pg.skip === undefined) await pg.drop();
  });

  it('/readyz is 503 while the database is unreachable, and 200 again once it is back', async () => {
    if (pg.skip !== undefined) return;
    const target = new URL(pg.url);
    const proxy = await startTcpProxy(Number(target.port || 5432), target.hostname);
    after(() => proxy.close());
    const through = new URL(pg.url);
    through.port = String(proxy.port);
    const server = await startServe(['--database', through.toString()]);
    const origin = originOf(server.url);
    assert.equal((await get(`${origin}/readyz`)).status, 200);
    proxy.cut();
    await waitFor('/readyz to say 503', async () => (await get(`${origin}/readyz`)).status === 503);
    const down = await get(`${origin}/readyz`);
    assert.equal(down.body, UNAVAILABLE, 'no detail of what failed');
    assert.equal((await get(`${origin}/healthz`)).status, 200);
    proxy.restore();
    await waitFor('/readyz to say 200 again', async () => (await get(`${origin}/readyz`)).status === 200);
    assert.equal(await stopServe(server), 0);
  });
});
