/**
 * `--only create`: POST /v1/devices/create at concurrency 32 (docs/performance.md, "The API"): on
 * PostgreSQL against a raw `pg` INSERT loop (bench/pg-insert-loop.ts), then on PostgreSQL and
 * SQLite against a hand-written node:http server sending the API's own INSERT
 * (bench/servers/create-*.ts). When `list` runs too, its PostgreSQL figure is taken here, on the
 * database the creates filled.
 */
import { join } from 'node:path';
import { nodeArgs } from '../../test/support/node-args.ts';
import { createTestDatabase } from '../../test/support/postgres.ts';
import type { BenchRun } from '../benchmark.ts';
import type { LoadOptions } from '../load.ts';
import { cli, runScript, startServer } from '../processes.ts';
import { median } from '../median.ts';
import { compare, measureLoad, measureServer, row, type Target } from './compare.ts';
import { listFifty } from './list.ts';
import { authOf, serveApi, type Api } from './serve.ts';

export async function benchCreate(run: BenchRun): Promise<void> {
  await createOnPostgres(run);
  await createOnSqlite(run);
}

/** POST /v1/devices/create on PostgreSQL at concurrency 32 against raw pg INSERTs, then the hand-written server. */
async function createOnPostgres(run: BenchRun): Promise<void> {
  const { report } = run;
  const pgDb = await createTestDatabase();
  if ('skip' in pgDb) {
    report('POST /v1/devices/create (PostgreSQL)', 'skipped', pgDb.skip ?? '');
    return;
  }
  let pgApi: Api | undefined;
  try {
    pgApi = await serveApi(run, pgDb.url);
    const api = pgApi;
    let n = 0;
    const rawRates: number[] = [];
    const apiRates: number[] = [];
    const rawCpu: number[] = [];
    const apiCpu: number[] = [];
    const loadCpu: number[] = [];
    const rawMachine: number[] = [];
    const apiMachine: number[] = [];
    const ratios: number[] = [];
    const createRequest = (prefix: string) => ({
      url: `${api.server.url}/devices/create`,
      method: 'POST' as const,
      headers: { ...authOf(api), 'content-type': 'application/json' },
      body: () => JSON.stringify({ target_type: 'domain', target_value: `${prefix}-${n++}.example.com` }),
      expectStatus: 201,
    });
    const runRaw = async () => {
      const raw = JSON.parse(
        await runScript(['bench/pg-insert-loop.ts', pgDb.url, '10', '32', String(run.seconds), '1']),
      ) as { perSecond: number; cpuMicrosPerInsert: number; machineMicrosPerInsert: number | null };
      rawRates.push(raw.perSecond);
      rawCpu.push(raw.cpuMicrosPerInsert);
      if (raw.machineMicrosPerInsert !== null) rawMachine.push(raw.machineMicrosPerInsert);
      return raw.perSecond;
    };
    const runApi = async (round: number) => {
      const measured = await measureServer(run, createRequest(`c${round}`), api.server.pid);
      apiRates.push(measured.perSecond);
      loadCpu.push(measured.loadCpu);
      apiCpu.push(measured.serverCpu);
      apiMachine.push(measured.machineCpu);
      return measured.perSecond;
    };
    await warmCreates(run, { ...createRequest('warm'), pid: api.server.pid });
    for (let round = 0; round < run.rounds; round++) {
      // Which goes first alternates: the table grows through the run, and neither side should
      // always meet the larger one.
      const [first, second] = round % 2 === 0 ? [runRaw, () => runApi(round)] : [() => runApi(round), runRaw];
      const a = await first();
      const b = await second();
      ratios.push(round % 2 === 0 ? b / a : a / b);
    }
    const raw = median(rawRates);
    const created = median(apiRates);
    report('POST /v1/devices/create (PostgreSQL, c=32, pool 10)', 'raw pg INSERT loop', Math.round(raw), '1.00');
    report(
      'POST /v1/devices/create (PostgreSQL, c=32, pool 10)',
      'monitoring-api',
      Math.round(created),
      median(ratios).toFixed(2),
      'target >= 0.80',
    );
    // Where the ratio comes from. Both runs use the whole machine, so the ratio is about the
    // CPU each spends per row: the server's and the load generator's against the raw loop's.
    const us = (values: number[]) => {
      const known = values.filter(Number.isFinite);
      return known.length === 0 ? 'n/a' : `${Math.round(median(known))} us`;
    };
    report('  CPU per insert, raw run', `loop process ${us(rawCpu)}`, `whole machine ${us(rawMachine)}`);
    report(
      '  CPU per create, API run',
      `server ${us(apiCpu)}`,
      `load generator ${us(loadCpu)}`,
      `whole machine ${us(apiMachine)}`,
    );
    await againstHandWritten(run, api, 'PostgreSQL', 'bench/servers/create-pg.ts', { BENCH_DATABASE: pgDb.url });
    if (run.selected('list')) {
      // A user of its own: the creates above gave the first one thousands of devices.
      const user = JSON.parse(await cli(['users', 'create', '--json', '--database', pgDb.url])) as { user_id: number };
      const key = JSON.parse(
        await cli(['keys', 'create', '--user', String(user.user_id), '--json', '--database', pgDb.url]),
      ) as { token: string };
      await listFifty(run, { server: api.server, token: key.token }, 'PostgreSQL');
    }
  } finally {
    // The server's pool would reconnect (its batched key-usage writes) while the database is
    // dropped; it goes first.
    await pgApi?.server.stop();
    await pgDb.drop();
  }
}

/** Creates a fresh server's cost is reported over, and creates that bring it to its steady state. */
const freshCreates = (run: BenchRun) => (run.smoke ? 100 : 2_000);
const WARM_CREATES = 20_000;
/** Server CPU per create over its first `freshCreates`, by process: set once, when it is warmed. */
const freshCpu = new Map<number, number>();

/**
 * Brings a server to the steady state in which it is compared, as a server in service is: V8
 * compiles a function's optimised code only after thousands of calls, and a fresh server spends
 * far more per request until it has (up to twice as much over the API's first 15,000 creates on
 * PostgreSQL, the hand-written server's first 5,000). It warms by count, not time: on a busy
 * machine a second of load is a few hundred creates, which leaves either side cold, and the one
 * warmed more (the API, by the raw loop's rounds) looks cheaper. The first `freshCreates` of each
 * server are measured on the way, so the cost of a fresh server is printed too.
 */
async function warmCreates(run: BenchRun, target: Target): Promise<void> {
  if (freshCpu.has(target.pid)) return;
  const fresh = freshCreates(run);
  freshCpu.set(target.pid, (await measureServer(run, { ...target, requests: fresh }, target.pid)).serverCpu);
  await measureLoad(run, { ...target, requests: WARM_CREATES - fresh });
}

/**
 * The fair create baseline (issue 16): a hand-written node:http server (bench/servers/create-*.ts)
 * that reads the body, parses it, checks the two required fields and sends the API's own INSERT
 * through the same driver, against the API on the same database, paired per round. Its figure is
 * server CPU per create: the database's own work is outside both processes.
 */
async function againstHandWritten(
  run: BenchRun,
  api: Api,
  database: string,
  script: string,
  env: Record<string, string>,
): Promise<void> {
  const me = (await (await fetch(`${api.server.url}/me`, { headers: authOf(api) })).json()) as {
    data: { user_id: number };
  };
  const hand = run.stopAtEnd(
    await startServer(process.execPath, nodeArgs(script), run.work, { BENCH_USER: String(me.data.user_id), ...env }),
  );
  let n = 0;
  const create = (url: string, prefix: string, headers: Record<string, string>): LoadOptions => ({
    url: `${url}/devices/create`,
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: () => JSON.stringify({ target_type: 'domain', target_value: `${prefix}-${n++}.example.com` }),
    expectStatus: 201,
  });
  const targets = {
    hand: { ...create(hand.url, 'hand', {}), pid: hand.pid },
    api: { ...create(api.server.url, 'api', authOf(api)), pid: api.server.pid },
  };
  for (const target of Object.values(targets)) await warmCreates(run, target);
  const result = await compare(run, targets, 'hand');
  const label = `POST /v1/devices/create (${database}, c=32${database === 'PostgreSQL' ? ', pool 10' : ''})`;
  const [freshHand, freshApi] = [freshCpu.get(hand.pid)!, freshCpu.get(api.server.pid)!];
  run.report(
    label,
    `fresh servers, first ${freshCreates(run)} creates`,
    `cpu hand ${freshHand.toFixed(1)} us/req, api ${freshApi.toFixed(1)} us/req (ratio ${(freshHand / freshApi).toFixed(2)})`,
  );
  run.report(label, 'hand-written node:http', ...row('hand', result));
  run.report(label, 'monitoring-api vs hand-written', ...row('api', result), 'target: cpu ratio >= 0.80');
  await hand.stop();
}

/** POST /v1/devices/create on SQLite against the hand-written server over node:sqlite. */
async function createOnSqlite(run: BenchRun): Promise<void> {
  const api = await serveApi(run, `sqlite:${join(run.work, 'create.db')}`);
  const handFile = join(run.work, 'create-hand.db');
  // Migrates the hand-written server's own file and gives it a user, as the API's has.
  const user = JSON.parse(await cli(['users', 'create', '--json', '--database', `sqlite:${handFile}`])) as {
    user_id: number;
  };
  await againstHandWritten(run, api, 'SQLite', 'bench/servers/create-sqlite.ts', {
    BENCH_DATABASE: handFile,
    BENCH_USER: String(user.user_id),
  });
}
