/**
 * `--only list`: GET /v1/devices with 50 records, against a bare node:http server answering the
 * same bytes (docs/performance.md, "The API"). On SQLite here; on PostgreSQL when `create` runs
 * too, on its database (bench/api/create.ts).
 */
import type { BenchRun } from '../benchmark.ts';
import { compare, pinned, row } from './compare.ts';
import { authOf, bare, capture, sharedSqliteApi, type Api } from './serve.ts';

export async function benchList(run: BenchRun): Promise<void> {
  await listFifty(run, await sharedSqliteApi(run));
}

/** GET /v1/devices with 50 records, on the database `api` serves (SQLite or PostgreSQL). */
export async function listFifty(run: BenchRun, api: Api, database = 'SQLite'): Promise<void> {
  for (let i = 0; i < 50; i++) {
    await fetch(`${api.server.url}/devices/create`, {
      method: 'POST',
      headers: { ...authOf(api), 'content-type': 'application/json' },
      body: JSON.stringify({ target_type: 'domain', target_value: `d${i}.example.com` }),
    });
  }
  const listBare = await bare(run, await capture(`${api.server.url}/devices`, api.token), `devices-${database}`);
  const list = await pinned([listBare, api.server], () =>
    compare(run, {
      bare: { url: `${listBare.url}/devices`, pid: listBare.pid },
      api: { url: `${api.server.url}/devices`, headers: authOf(api), pid: api.server.pid },
    }),
  );
  run.report(`GET /v1/devices (50, ${database})`, 'bare', ...row('bare', list));
  run.report(`GET /v1/devices (50, ${database})`, 'monitoring-api', ...row('api', list), 'target >= 0.85');
}
