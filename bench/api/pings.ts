/**
 * Pings (`/ping/<token>`, core/public/ping-route.ts) against GET /v1/me on the same server, the
 * server's CPU per request (docs/heartbeats.md, "Performance"). A ping is answered once its
 * batch is committed; the tokens are many, so that none passes its 5 pings a second. Two answers
 * of the same route tell where a ping's cost lies: a token of no heartbeat, answered 404 once its
 * batch has read that no row holds it (the store's read without a write), and a path that is no
 * token, answered 404 before the store is asked (the HTTP and routing alone).
 */
import { randomUUID } from 'node:crypto';
import type { BenchRun } from '../benchmark.ts';
import { seedHeartbeats } from '../heartbeats-seed.ts';
import { loadNow } from '../load-average.ts';
import { compare, pinned, row, type Compared } from './compare.ts';
import { authOf, type Api } from './serve.ts';

/**
 * Heartbeats pinged in turn: at most 5 pings a second reach one token (else 429), so at up to
 * 100,000 requests a second each is pinged every 0.2 s at most.
 */
const TOKENS = 20_000;

export async function pingsAgainstMe(run: BenchRun, api: Api, database: string, store: string): Promise<void> {
  const { tokens } = await seedHeartbeats(database, run.smoke ? 500 : TOKENS, new Date());
  const origin = new URL(api.server.url).origin;
  const pid = api.server.pid;
  let next = 0;
  let malformed = 0;
  const result = await pinned([api.server], () =>
    compare(
      run,
      {
        me: { url: `${api.server.url}/me`, headers: authOf(api), pid },
        ping: { url: `${origin}/ping/${tokens[0]}`, path: () => `/ping/${tokens[next++ % tokens.length]}`, pid },
        // Each a new UUID, so that the rate of no token is reached either.
        unknown: { url: `${origin}/ping/${randomUUID()}`, path: () => `/ping/${randomUUID()}`, expectStatus: 404, pid },
        malformed: { url: `${origin}/ping/x`, path: () => `/ping/x${malformed++}`, expectStatus: 404, pid },
      },
      'me',
    ),
  );
  const what = `GET /ping/<uuid> (${store})`;
  run.report(what, 'GET /v1/me, same server', ...row('me', result), loadNow());
  run.report(what, 'ping', ...inGetsOfMe('ping', result), 'target <= 1.5x');
  run.report(what, 'ping, no such token (404 after the read)', ...inGetsOfMe('unknown', result));
  run.report(what, 'ping, not a token (404 before the store)', ...inGetsOfMe('malformed', result));
}

/** Requests per second, the ratio to GET /me's, and the CPU per request in GETs of /me. */
function inGetsOfMe(name: string, result: Compared): (string | number)[] {
  // compare's CPU ratio is the baseline's over the target's: a request's cost in GETs of /me is its inverse.
  const spread = result.cpuSpread[name]!.map((r) => (1 / r).toFixed(2)).reverse();
  return [
    Math.round(result.rate[name]!),
    result.ratio[name]!.toFixed(2),
    `cpu ${result.cpu[name]!.toFixed(1)} us/req`,
    `${(1 / result.cpuRatio[name]!).toFixed(2)}x GET /me (rounds ${spread.join('-')})`,
  ];
}
