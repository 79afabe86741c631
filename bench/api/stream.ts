/**
 * `--only stream`: a streamed list of 10,000 and of 100,000 devices on SQLite: the server's peak
 * RSS growth and the time each takes (bench/streamed-list.ts), which should grow with the count.
 */
import { join } from 'node:path';
import type { BenchRun } from '../benchmark.ts';
import { cli } from '../processes.ts';
import { seedDevices } from '../seed.ts';
import { streamedList } from '../streamed-list.ts';
import { serveApi } from './serve.ts';

export async function benchStream(run: BenchRun): Promise<void> {
  const big = run.smoke ? [200, 1_000] : [10_000, 100_000];
  const bigDb = `sqlite:${join(run.work, 'big.db')}`;
  const streamed = await serveApi(run, bigDb);
  const owners = await seedDevices(bigDb, big);
  const times: number[] = [];
  for (const [i, count] of big.entries()) {
    const key = JSON.parse(
      await cli(['keys', 'create', '--user', String(owners[i]), '--json', '--database', bigDb]),
    ) as { token: string };
    const result = await streamedList(`${streamed.server.url}/devices`, key.token, streamed.server.pid);
    if (result.records !== count) throw new Error(`streamed ${result.records} records, expected ${count}`);
    times.push(result.ms);
    run.report(
      `GET /v1/devices (${count} records, streamed)`,
      `${result.ms.toFixed(0)} ms`,
      `peak RSS growth ${(result.rssGrowth / 1048576).toFixed(1)} MB`,
      'target < 64 MB',
    );
  }
  run.report(
    'streamed list time ratio',
    `${big[1]! / big[0]!}x records`,
    `${(times[1]! / times[0]!).toFixed(1)}x time`,
    'linear ~ equal',
  );
}
