/**
 * The servers the API's benchmarks (bench/api/) load: the API as it ships, started as an operator
 * starts it, and a bare node:http server (bench/servers/bare.ts) answering the very bytes the API
 * sent. Every server started here is stopped when the run ends (`BenchRun.stopAtEnd`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeArgs } from '../../test/support/node-args.ts';
import type { BenchRun } from '../benchmark.ts';
import { cli, startServer, type RunningServer } from '../processes.ts';

export interface Api {
  server: RunningServer;
  /** An API key of a user of its own, made with the command line. */
  token: string;
}

export const authOf = (api: Api) => ({ authorization: `Bearer ${api.token}` });

/** The API on `database`, with a user and a key made for it. */
export async function serveApi(run: BenchRun, database: string, extra: string[] = []): Promise<Api> {
  const user = JSON.parse(await cli(['users', 'create', '--json', '--database', database])) as { user_id: number };
  const key = JSON.parse(
    await cli(['keys', 'create', '--user', String(user.user_id), '--json', '--database', database]),
  ) as { token: string };
  // The compiled package, as an operator runs it (bench/run.ts builds it first when stale). Idle
  // connections are kept for the whole run: the run's own requests between loads (seeding,
  // capturing an answer) reuse a pooled connection, and one the server closed after the default
  // 5 s as the client sent on it would fail the request ("other side closed"), which a busy
  // machine's late timers make likely. Under load the connections are never idle, so the figures
  // do not depend on it.
  const server = await startServer(
    process.execPath,
    [
      // A CPU profile of the server, written when it stops (bench/run.ts).
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
      'dist/cli/main.js',
      'serve',
      '--port',
      '0',
      '--database',
      database,
      '--rate-limit',
      '1000000000/60',
      '--keep-alive-timeout',
      '3600000',
      ...extra,
    ],
    run.work,
  );
  run.stopAtEnd(server);
  return { server, token: key.token };
}

/** The SQLite database of the run that GET /me, the list and the report queries use. */
export const sqliteDatabase = (run: BenchRun) => `sqlite:${join(run.work, 'bench.db')}`;

let shared: Promise<Api> | undefined;

/** One API on `sqliteDatabase` for GET /me and the list of 50: started by whichever runs first. */
export function sharedSqliteApi(run: BenchRun): Promise<Api> {
  return (shared ??= serveApi(run, sqliteDatabase(run)));
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A bare server that answers every request with `response`; `name` names its file in the run's directory. */
export async function bare(run: BenchRun, response: Answer, name: string): Promise<RunningServer> {
  const file = join(run.work, `${name}.json`);
  writeFileSync(file, JSON.stringify(response));
  const server = await startServer(process.execPath, nodeArgs('bench/servers/bare.ts'), run.work, {
    BENCH_RESPONSE: file,
  });
  return run.stopAtEnd(server);
}

/** The API's answer to a GET of `url`, without the headers a server sets for each connection. */
export async function capture(url: string, token: string): Promise<Answer> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers)
    if (!['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name))
      headers[name] = value;
  return { status: response.status, headers, body: await response.text() };
}
