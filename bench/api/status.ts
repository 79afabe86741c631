/**
 * `--only status`: the public status answers on the worst day (docs/status-pages.md,
 * "Performance"). One `serve --worker` process on SQLite checks 1,000 devices at their shortest
 * interval (30 s), all on loopback, all but one down (a port nobody listens on: the page shows
 * an outage, as it does when it is read hardest); a page of 20 of them, 90 days, is read while
 * it does. The server's CPU per page view (Brotli, as browsers ask), per summary.json, per badge
 * and per 304 is compared with its CPU per GET /v1/me on the same server in the same rounds.
 */
import type { BenchRun } from '../benchmark.ts';
import { startEngineTargets } from '../engine-targets-process.ts';
import { compare, pinned, row } from './compare.ts';
import { authOf, serveApi } from './serve.ts';
import { join } from 'node:path';

const DEVICES = 1_000;
const COMPONENTS = 20;

export async function benchStatus(run: BenchRun): Promise<void> {
  const targets = await startEngineTargets();
  try {
    const database = `sqlite:${join(run.work, 'status.db')}`;
    const api = await serveApi(run, database, ['--worker', '--allow-private-targets']);
    const base = api.server.url;
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { ...authOf(api), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { data: { id: number } }).data;
    };
    const count = run.smoke ? COMPONENTS : DEVICES;
    const ids: number[] = [];
    for (let i = 0; i < count; i += 50) {
      const batch = Array.from({ length: Math.min(50, count - i) }, (_, j) => i + j);
      ids.push(
        ...(
          await Promise.all(
            batch.map((n) =>
              post('/devices/create', {
                target_type: 'ip',
                target_value: '127.0.0.1',
                service_type: 'tcp',
                // The first answers (the targets' TCP port); the others refuse: down.
                port: n === 0 ? targets.tcp : 20_000 + n,
                check_interval_s: 30,
              }),
            ),
          )
        ).map((d) => d.id),
      );
    }
    const slug = 'worst-day';
    await post('/status-pages/create', {
      slug,
      title: 'Acme',
      components: ids.slice(0, COMPONENTS).map((id, n) => ({ name: `Service ${n}`, device_id: id })),
    });
    // A page of the one device that is up: what it shows stays as it is for the day, so one ETag
    // serves every 304 of the run (the other's moves with every minute of downtime).
    await post('/status-pages/create', {
      slug: 'steady',
      title: 'Acme',
      components: [{ name: 'Website', device_id: ids[0] }],
    });
    const origin = new URL(base).origin;
    const page = `${origin}/status/${slug}`;
    const steady = `${origin}/status/steady`;
    for (;;) {
      const res = await fetch(`${steady}/summary.json`);
      const summary = (await res.json()) as { components: { status: string }[] };
      if (summary.components[0]?.status === 'operational') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const first = await fetch(steady, { headers: { 'accept-encoding': 'br' } });
    const etag = first.headers.get('etag')!;
    await first.arrayBuffer();
    const pid = api.server.pid;
    const result = await pinned([api.server], () =>
      compare(
        run,
        {
          me: { url: `${base}/me`, headers: authOf(api), pid },
          page: { url: page, headers: { 'accept-encoding': 'br' }, pid },
          summary: { url: `${page}/summary.json`, headers: { 'accept-encoding': 'gzip' }, pid },
          badge: { url: `${page}/badge.svg`, pid },
          notModified: {
            url: steady,
            headers: { 'accept-encoding': 'br', 'if-none-match': etag },
            expectStatus: 304,
            pid,
          },
        },
        'me',
      ),
    );
    const what = `status pages (${count} devices checked, ${COMPONENTS} components)`;
    run.report(what, 'GET /v1/me', ...row('me', result));
    run.report(what, 'page (br)', ...row('page', result), 'target cpu ratio >= 0.67');
    run.report(what, 'summary.json (gzip)', ...row('summary', result), 'target cpu ratio >= 0.67');
    run.report(what, 'badge.svg', ...row('badge', result), 'target cpu ratio >= 0.67');
    run.report(what, '304', ...row('notModified', result), 'target cpu ratio >= 1');
  } finally {
    await targets.stop();
  }
}
