/**
 * `--only me`: GET /v1/me with real key authentication, against a bare node:http server answering
 * the same bytes and Hono answering a constant (docs/performance.md, "The API").
 */
import { nodeArgs } from '../../test/support/node-args.ts';
import type { BenchRun } from '../benchmark.ts';
import { startServer } from '../processes.ts';
import { compare, pinned, row } from './compare.ts';
import { authOf, bare, capture, sharedSqliteApi } from './serve.ts';

export async function benchMe(run: BenchRun): Promise<void> {
  const api = await sharedSqliteApi(run);
  const meBare = await bare(run, await capture(`${api.server.url}/me`, api.token), 'me');
  const hono = run.stopAtEnd(await startServer(process.execPath, nodeArgs('bench/servers/hono.ts'), run.work));
  const me = await pinned([meBare, hono, api.server], () =>
    compare(run, {
      bare: { url: `${meBare.url}/me`, pid: meBare.pid },
      hono: { url: `${hono.url}/me`, pid: hono.pid },
      api: { url: `${api.server.url}/me`, headers: authOf(api), pid: api.server.pid },
    }),
  );
  run.report('GET /v1/me', 'bare', ...row('bare', me));
  run.report('GET /v1/me', 'hono (constant, no auth)', ...row('hono', me));
  run.report('GET /v1/me', 'monitoring-api (SQLite, key auth)', ...row('api', me), 'target >= 0.85');
}
