/**
 * `--only update`: PATCH /v1/devices/update against POST /v1/devices/create on the same server and
 * database, in turn, on SQLite and on PostgreSQL: server CPU per request of each
 * (docs/performance.md, "Changes"). Every PATCH changes the target of one of many devices (a
 * write, and a restart of its checks, as a real change of what is checked would), so that 32
 * connections seldom change one record at once; every create makes a new device.
 */
import { join } from 'node:path';
import { createTestDatabase } from '../../test/support/postgres.ts';
import type { BenchRun } from '../benchmark.ts';
import { compare, row } from './compare.ts';
import { authOf, serveApi, type Api } from './serve.ts';

export async function benchUpdate(run: BenchRun): Promise<void> {
  await updateOn(run, 'SQLite', `sqlite:${join(run.work, 'update.db')}`);
  const pgDb = await createTestDatabase();
  if ('skip' in pgDb) {
    run.report('PATCH /v1/devices/update (PostgreSQL)', 'skipped', pgDb.skip ?? '');
    return;
  }
  try {
    await updateOn(run, 'PostgreSQL', pgDb.url);
  } finally {
    await pgDb.drop();
  }
}

async function updateOn(run: BenchRun, database: string, url: string): Promise<void> {
  const api = await serveApi(run, url);
  try {
    await compareUpdate(run, api, database);
  } finally {
    await api.server.stop();
  }
}

async function compareUpdate(run: BenchRun, api: Api, database: string): Promise<void> {
  const headers = { ...authOf(api), 'content-type': 'application/json' };
  const ids: number[] = [];
  for (let i = 0; i < (run.smoke ? 32 : 1000); i++) {
    const answer = await fetch(`${api.server.url}/devices/create`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ target_type: 'domain', target_value: `seed-${i}.example.com` }),
    });
    ids.push(((await answer.json()) as { data: { id: number } }).data.id);
  }
  const base = new URL(api.server.url).pathname;
  let created = 0;
  let changed = 0;
  const result = await compare(
    run,
    {
      create: {
        url: `${api.server.url}/devices/create`,
        method: 'POST',
        headers,
        expectStatus: 201,
        pid: api.server.pid,
        body: () => JSON.stringify({ target_type: 'domain', target_value: `new-${created++}.example.com` }),
      },
      update: {
        url: `${api.server.url}/devices/update?id=${ids[0]}`,
        method: 'PATCH',
        headers,
        pid: api.server.pid,
        path: () => `${base}/devices/update?id=${ids[changed % ids.length]}`,
        body: () => JSON.stringify({ target_value: `changed-${changed++}.example.com` }),
      },
    },
    'create',
  );
  const label = `PATCH /v1/devices/update (${database}, c=32)`;
  run.report(label, 'POST /v1/devices/create, same server', ...row('create', result));
  run.report(label, 'PATCH vs create', ...row('update', result), 'target: cpu ratio >= 0.83 (PATCH <= 1.2x create)');
}
