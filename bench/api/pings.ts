/**
 * Pings (`/ping/<token>`, core/public/ping-route.ts) against GET /v1/me on the same server, the
 * server's CPU per request (docs/heartbeats.md, "Performance"). A ping is answered once its
 * batch is committed; the tokens are many, so that none passes its 5 pings a second.
 */
import type { BenchRun } from '../benchmark.ts';
import { seedHeartbeats } from '../heartbeats-seed.ts';
import { loadNow } from '../load-average.ts';
import { compare, pinned, row } from './compare.ts';
import { authOf, type Api } from './serve.ts';

/**
 * Heartbeats pinged in turn: at most 5 pings a second reach one token (else 429), so at up to
 * 100,000 requests a second each is pinged every 0.2 s at most.
 */
const TOKENS = 20_000;

export async function pingsAgainstMe(run: BenchRun, api: Api, database: string, store: string): Promise<void> {
  const { tokens } = await seedHeartbeats(database, run.smoke ? 500 : TOKENS, new Date());
  const origin = new URL(api.server.url).origin;
  let next = 0;
  const result = await pinned([api.server], () =>
    compare(
      run,
      {
        me: { url: `${api.server.url}/me`, headers: authOf(api), pid: api.server.pid },
        ping: {
          url: `${origin}/ping/${tokens[0]}`,
          path: () => `/ping/${tokens[next++ % tokens.length]}`,
          pid: api.server.pid,
        },
      },
      'me',
    ),
  );
  const what = `GET /ping/<uuid> (${store})`;
  run.report(what, 'GET /v1/me, same server', ...row('me', result), loadNow());
  // compare's CPU ratio is the baseline's over the target's: a ping's cost in GETs of /me is its inverse.
  run.report(
    what,
    'ping',
    Math.round(result.rate.ping!),
    result.ratio.ping!.toFixed(2),
    `cpu ${result.cpu.ping!.toFixed(1)} us/req`,
    `${(1 / result.cpuRatio.ping!).toFixed(2)}x GET /me (rounds ${result.cpuSpread
      .ping!.map((r) => (1 / r).toFixed(2))
      .reverse()
      .join('-')})`,
    'target <= 1.5x',
  );
}
