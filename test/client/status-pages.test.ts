/**
 * The client's `statusPages` and `statusPages.notices` against a real HTTP server: the API over
 * node:http on 127.0.0.1, on the memory store and a manual clock (docs/status-pages.md); and the
 * public page through the same server, by slug and by its hostname.
 */
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createNodeHandler } from '../../adapters/node/index.ts';
import { createMonitoringClient, MonitoringApiError, type MonitoringClient, type Notice } from '../../client/index.ts';
import { createTestApi, type TestApi } from '../../core/testing/index.ts';

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** A GET over node:http, with any Host field (fetch would not let the test choose it). */
function get(port: number, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>(
    (resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    },
  );
}

describe('client status pages against the API over node:http', { concurrency: 1 }, () => {
  let t: TestApi;
  let server: Server;
  let port: number;
  let api: MonitoringClient;
  let deviceId: number;

  before(async () => {
    t = createTestApi({ rateLimit: { limit: 10_000, windowSeconds: 60 } });
    server = createServer(createNodeHandler(t.api));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    api = createMonitoringClient({ baseUrl: `http://127.0.0.1:${port}/v1`, token: (await t.createKey()).token });
    deviceId = (await api.devices.create({ target_type: 'domain', target_value: 'example.com' })).id;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  test('pages: create, list, all, get, update and delete; a taken slug is duplicate_slug without an id', async () => {
    const page = await api.statusPages.create({
      slug: 'client-page',
      title: 'Client',
      components: [{ name: 'Site', device_id: deviceId }],
      hostname: 'status.client.example.org',
    });
    assert.equal(page.history_days, 90);
    assert.deepEqual((await api.statusPages.list()).data, [page]);
    assert.deepEqual(await collect(api.statusPages.all({ pageSize: 1 })), [page]);
    assert.deepEqual(await api.statusPages.get(page.id), page);
    const changed = await api.statusPages.update(page.id, { title: 'Client 2', description: null });
    assert.equal(changed.title, 'Client 2');
    await assert.rejects(
      api.statusPages.create({ slug: 'client-page', title: 'X', components: [{ name: 'S', device_id: deviceId }] }),
      (error: MonitoringApiError) =>
        error.code === 'duplicate_slug' && error.status === 409 && error.existingId === undefined,
    );

    // The page as the public reads it, through the same server: by slug, and by its own hostname.
    const bySlug = await get(port, '/status/client-page', {});
    assert.equal(bySlug.status, 200);
    assert.match(bySlug.body, /<h1>Client 2<\/h1>/);
    const byHost = await get(port, '/', { host: 'status.client.example.org' });
    assert.equal(byHost.body, bySlug.body.replaceAll('/status/client-page/', '/'));
    const notModified = await get(port, '/status/client-page', { 'if-none-match': String(bySlug.headers.etag) });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.headers['content-length'], undefined);
    assert.equal(notModified.body, '');

    assert.deepEqual(await api.statusPages.delete(page.id), { id: page.id, deleted: true });
    assert.equal((await get(port, '/status/client-page', {})).status, 404);
  });

  test('notices: written, updated, paged per page, read and deleted', async () => {
    const page = await api.statusPages.create({
      slug: 'client-notices',
      title: 'Notices',
      components: [{ name: 'Site', device_id: deviceId }],
    });
    const input = {
      status_page_id: page.id,
      title: 'Slow',
      impact: 'minor',
      status: 'investigating',
      message: 'Hm.',
    } as const;
    const first = await api.statusPages.notices.create(input);
    const second = await api.statusPages.notices.create({ ...input, title: 'Second', component_indexes: [0] });
    t.clock.advance(60_000);
    const updated = await api.statusPages.notices.update(first.id, { status: 'resolved', message: 'Fixed.' });
    assert.deepEqual(
      updated.updates.map((u) => [u.status, u.message]),
      [
        ['investigating', 'Hm.'],
        ['resolved', 'Fixed.'],
      ],
    );
    assert.equal(updated.resolved_at, new Date(t.clock.now()).toISOString());
    const firstPage = await api.statusPages.notices.list(page.id, { limit: 1 });
    assert.deepEqual(firstPage.data, [updated]);
    assert.deepEqual(firstPage.next, { limit: 1, afterId: first.id });
    const all: Notice[] = await collect(api.statusPages.notices.all(page.id, { pageSize: 1 }));
    assert.deepEqual(all, [updated, second]);
    assert.deepEqual(await api.statusPages.notices.get(second.id), second);
    assert.deepEqual(await api.statusPages.notices.delete(second.id), { id: second.id, deleted: true });
    await assert.rejects(
      api.statusPages.notices.get(second.id),
      (error: MonitoringApiError) => error.code === 'notice_not_found',
    );
    await assert.rejects(
      api.statusPages.notices.list(999_999),
      (error: MonitoringApiError) => error.code === 'status_page_not_found',
    );
  });

  test('a heartbeat as a component: its name lent, its state on the public page', async () => {
    const hb = await api.heartbeats.create({ name: 'Nightly backup', period_s: 3600 });
    const page = await api.statusPages.create({
      slug: 'client-jobs',
      title: 'Jobs',
      components: [{ heartbeat_id: hb.id }],
    });
    assert.deepEqual(page.components, [{ name: 'Nightly backup', group: null, heartbeat_id: hb.id }]);
    assert.match((await get(port, '/status/client-jobs', {})).body, /Not monitored/, 'never pinged');
    assert.equal((await t.ping(hb.ping_url!)).status, 200);
    const summary = JSON.parse((await get(port, '/status/client-jobs/summary.json', {})).body) as {
      components: { name: string; status: string }[];
    };
    assert.deepEqual(
      summary.components.map((c) => [c.name, c.status]),
      [['Nightly backup', 'operational']],
    );
  });
});
