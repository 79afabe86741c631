/**
 * docs/status-pages.md, "Managing pages" and "Notices": /status-pages and /status-pages/notices as
 * resources, on every store, every answer checked against the OpenAPI document.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import { MemoryStore, type ComponentIds, type Notice, type StatusPage } from '../../core/index.ts';
import type { TestApi, TestRequestInit } from '../../core/testing/index.ts';
import {
  assertError,
  assertSuccess,
  assertValidation,
  createTestApi,
  eachStore,
  validationOnly,
} from '../api/helpers.ts';

const post = (key: CreatedApiKey, body: unknown): TestRequestInit => ({ method: 'POST', key, body });
const patch = (key: CreatedApiKey, body: unknown): TestRequestInit => ({ method: 'PATCH', key, body });
let slugs = 0;
const slug = () => `acme-${++slugs}-${process.pid}`;

async function record(t: TestApi, key: CreatedApiKey, kind: 'devices' | 'blacklist-monitors', name: string) {
  const body = { target_type: 'domain', target_value: name };
  return assertSuccess(await t.request<{ id: number }>(`/v1/${kind}/create`, post(key, body)), 201).id;
}

async function page(t: TestApi, key: CreatedApiKey, body: Record<string, unknown>): Promise<StatusPage> {
  return assertSuccess(await t.request<StatusPage>('/v1/status-pages/create', post(key, body)), 201);
}

eachStore('status pages as a resource', (env) => {
  test('created with its defaults, read, listed, changed and deleted', async () => {
    const { t, key } = await env.setup();
    const device = await record(t, key, 'devices', 'www.acme.example.org');
    const monitor = await record(t, key, 'blacklist-monitors', 'mail.acme.example.org');
    const s = slug();
    const body = {
      slug: s,
      title: 'Acme',
      components: [
        { name: 'Website', group: 'Public', device_id: device },
        { name: 'Mail reputation', blacklist_monitor_id: monitor },
      ],
    };
    const created = await page(t, key, body);
    assert.deepEqual(created, {
      id: created.id,
      slug: s,
      title: 'Acme',
      description: null,
      components: [
        { name: 'Website', group: 'Public', device_id: device },
        { name: 'Mail reputation', group: null, blacklist_monitor_id: monitor },
      ],
      history_days: 90,
      time_zone: 'UTC',
      show_response_times: false,
      show_targets: false,
      hostname: null,
      is_public: true,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    });
    assert.deepEqual(assertSuccess(await t.request(`/v1/status-pages/get?id=${created.id}`, { key }), 200), created);
    assert.deepEqual(assertSuccess(await t.request('/v1/status-pages', { key }), 200), [created]);

    t.clock.advance(60_000);
    const same = assertSuccess(await t.request(`/v1/status-pages/update?id=${created.id}`, patch(key, {})), 200);
    assert.deepEqual(same, created, 'an empty change changes nothing, updated_at included');
    const changes = {
      title: 'Acme Inc.',
      description: 'Our services.\nUpdated every minute.',
      hostname: 'Status.Acme.Example.ORG.',
      time_zone: 'Europe/Berlin',
      history_days: 30,
      components: [{ name: 'Website', device_id: device }],
    };
    const changed = assertSuccess(
      await t.request<StatusPage>(`/v1/status-pages/update?id=${created.id}`, patch(key, changes)),
      200,
    );
    assert.deepEqual(changed, {
      ...created,
      ...changes,
      hostname: 'status.acme.example.org',
      components: [{ name: 'Website', group: null, device_id: device }],
      updated_at: '2026-01-01T00:01:00.000Z',
    });
    const other = await env.setup();
    assertError(
      await other.t.request(`/v1/status-pages/get?id=${created.id}`, { key: other.key }),
      404,
      'status_page_not_found',
    );
    assertError(
      await other.t.request(`/v1/status-pages/delete?id=${created.id}`, { method: 'DELETE', key: other.key }),
      404,
      'status_page_not_found',
    );
    assertSuccess(await t.request(`/v1/status-pages/delete?id=${created.id}`, { method: 'DELETE', key }), 200);
    assertError(await t.request(`/v1/status-pages/get?id=${created.id}`, { key }), 404, 'status_page_not_found');
  });

  test('a slug and a hostname are one page’s across all users: 409 without the other page’s id', async () => {
    const alice = await env.setup();
    const bob = await env.setup();
    const device = await record(alice.t, alice.key, 'devices', 'a.acme.example.org');
    const theirs = await record(bob.t, bob.key, 'devices', 'b.acme.example.org');
    const s = slug();
    const first = await page(alice.t, alice.key, {
      slug: s,
      title: 'A',
      hostname: `${s}.example.net`,
      components: [{ name: 'A', device_id: device }],
    });
    const clash = { slug: s, title: 'B', components: [{ name: 'B', device_id: theirs }] };
    const error = assertError(
      await bob.t.request('/v1/status-pages/create', post(bob.key, clash)),
      409,
      'duplicate_slug',
    );
    assert.equal(error.existing_id, undefined);
    const host = { ...clash, slug: slug(), hostname: `${s}.EXAMPLE.net` };
    assertError(await bob.t.request('/v1/status-pages/create', post(bob.key, host)), 409, 'duplicate_hostname');
    const mine = await page(bob.t, bob.key, { ...clash, slug: slug() });
    assertError(
      await bob.t.request(`/v1/status-pages/update?id=${mine.id}`, patch(bob.key, { slug: first.slug })),
      409,
      'duplicate_slug',
    );
  });

  test('components: the user’s own records only; one deleted later does not block a change', async () => {
    const { t, key } = await env.setup();
    const other = await env.setup();
    const device = await record(t, key, 'devices', 'c.acme.example.org');
    const foreign = await record(other.t, other.key, 'devices', 'd.acme.example.org');
    const body = {
      slug: slug(),
      title: 'C',
      components: [
        { name: 'C', device_id: device },
        { name: 'X', device_id: foreign },
      ],
    };
    assertValidation(await t.request('/v1/status-pages/create', post(key, body)), [
      ['components[1].device_id', 'invalid_value'],
    ]);
    const created = await page(t, key, { ...body, components: [body.components[0]] });
    assertSuccess(await t.request(`/v1/devices/delete?id=${device}`, { method: 'DELETE', key }), 200);
    const changed = assertSuccess(
      await t.request<StatusPage>(`/v1/status-pages/update?id=${created.id}`, patch(key, { title: 'D' })),
      200,
    );
    assert.deepEqual(changed.components, [{ name: 'C', group: null, device_id: device }]);
  });

  test('notices: written, updated with their times, resolved, listed, read and deleted', async () => {
    const { t, key } = await env.setup();
    const device = await record(t, key, 'devices', 'e.acme.example.org');
    const created = await page(t, key, { slug: slug(), title: 'E', components: [{ name: 'E', device_id: device }] });
    const body = {
      status_page_id: created.id,
      title: 'Slow',
      impact: 'minor',
      status: 'investigating',
      message: 'Looking.',
    };
    const notice = assertSuccess(await t.request<Notice>('/v1/status-pages/notices/create', post(key, body)), 201);
    assert.deepEqual(notice, {
      id: notice.id,
      status_page_id: created.id,
      title: 'Slow',
      impact: 'minor',
      status: 'investigating',
      component_indexes: [],
      updates: [{ status: 'investigating', message: 'Looking.', at: '2026-01-01T00:00:00.000Z' }],
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      resolved_at: null,
    });
    t.clock.advance(300_000);
    const update = { status: 'resolved', message: 'Fixed.\nSorry.', impact: 'major', component_indexes: [0] };
    const resolved = assertSuccess(
      await t.request<Notice>(`/v1/status-pages/notices/update?id=${notice.id}`, patch(key, update)),
      200,
    );
    assert.deepEqual(resolved, {
      ...notice,
      impact: 'major',
      status: 'resolved',
      component_indexes: [0],
      updates: [...notice.updates, { status: 'resolved', message: 'Fixed.\nSorry.', at: '2026-01-01T00:05:00.000Z' }],
      updated_at: '2026-01-01T00:05:00.000Z',
      resolved_at: '2026-01-01T00:05:00.000Z',
    });
    t.clock.advance(60_000);
    // A message alone keeps the status, and a resolved notice its resolved_at.
    const more = assertSuccess(
      await t.request<Notice>(
        `/v1/status-pages/notices/update?id=${notice.id}`,
        patch(key, { message: 'Postmortem.' }),
      ),
      200,
    );
    assert.deepEqual([more.status, more.resolved_at, more.updates.length], ['resolved', resolved.resolved_at, 3]);
    const second = assertSuccess(
      await t.request<Notice>('/v1/status-pages/notices/create', post(key, { ...body, title: 'Two' })),
      201,
    );
    const list = (q: string) =>
      t.request<Notice[]>(`/v1/status-pages/notices?status_page_id=${created.id}${q}`, { key });
    assert.deepEqual(
      assertSuccess(await list(''), 200).map((n) => n.id),
      [notice.id, second.id],
    );
    const first = await list('&limit=1');
    assert.deepEqual(
      assertSuccess(first, 200).map((n) => n.id),
      [notice.id],
    );
    assert.equal(
      first.headers.get('link'),
      `</v1/status-pages/notices?status_page_id=${created.id}&limit=1&after_id=${notice.id}>; rel="next"`,
    );
    assert.deepEqual(
      assertSuccess(await t.request(`/v1/status-pages/notices/get?id=${second.id}`, { key }), 200),
      second,
    );
    const other = await env.setup();
    assertError(
      await other.t.request(`/v1/status-pages/notices/get?id=${second.id}`, { key: other.key }),
      404,
      'notice_not_found',
    );
    assertError(
      await other.t.request(`/v1/status-pages/notices?status_page_id=${created.id}`, { key: other.key }),
      404,
      'status_page_not_found',
    );
    assertSuccess(await t.request(`/v1/status-pages/notices/delete?id=${second.id}`, { method: 'DELETE', key }), 200);
    assertError(
      await t.request(`/v1/status-pages/notices/delete?id=${second.id}`, { method: 'DELETE', key }),
      404,
      'notice_not_found',
    );
    // A page's notices go with it.
    assertSuccess(await t.request(`/v1/status-pages/delete?id=${created.id}`, { method: 'DELETE', key }), 200);
    assertError(await t.request(`/v1/status-pages/notices/get?id=${notice.id}`, { key }), 404, 'notice_not_found');
  });

  validationOnly(env, () => {
    test('every field judged, each problem named, nested ones by their index', async () => {
      const { t, key } = await env.setup();
      const device = await record(t, key, 'devices', 'f.acme.example.org');
      const create = (body: unknown) => t.request('/v1/status-pages/create', post(key, body));
      const good = { slug: slug(), title: 'F', components: [{ name: 'F', device_id: device }] };
      assertValidation(
        await create({
          slug: 'No',
          title: ' ',
          description: 'tab\there',
          components: [
            { name: 'Two ids', device_id: device, blacklist_monitor_id: 1 },
            { device_id: device },
            { name: 'Beat', heartbeat_id: 0 },
            'nope',
          ],
          history_days: 6,
          time_zone: 'Mars/Olympus',
          hostname: '192.0.2.1',
          is_public: 'yes',
          theme: 'dark',
        }),
        [
          ['slug', 'invalid_value'],
          ['title', 'invalid_value'],
          ['description', 'invalid_value'],
          ['components[0]', 'invalid_value'],
          ['components[2].heartbeat_id', 'out_of_range'],
          ['components[3]', 'invalid_type'],
          ['history_days', 'out_of_range'],
          ['time_zone', 'invalid_value'],
          ['hostname', 'invalid_value'],
          ['is_public', 'invalid_type'],
          ['theme', 'unknown_field'],
        ],
      );
      // A device has no name of its own to lend.
      assertValidation(await create({ ...good, components: [{ device_id: device }] }), [
        ['components[0].name', 'missing'],
      ]);
      assertValidation(await create({ ...good, components: [] }), [['components', 'out_of_range']]);
      assertValidation(await create({ title: 'x'.repeat(101) }), [
        ['slug', 'missing'],
        ['title', 'too_long'],
        ['components', 'missing'],
      ]);
      const created = await page(t, key, good);
      assertValidation(
        await t.request(
          `/v1/status-pages/update?id=${created.id}`,
          patch(key, { id: 2, updated_at: null, slug: null }),
        ),
        [
          ['id', 'read_only_field'],
          ['updated_at', 'read_only_field'],
          ['slug', 'invalid_type'],
        ],
      );
      assertError(await t.request('/v1/status-pages/get?id=x', { key }), 400, 'invalid_id');
      assertValidation(await t.request('/v1/status-pages?limit=0', { key }), [['limit', 'out_of_range']]);
    });

    test('notices: every field judged against the page', async () => {
      const { t, key } = await env.setup();
      const other = await env.setup();
      const device = await record(t, key, 'devices', 'g.acme.example.org');
      const created = await page(t, key, { slug: slug(), title: 'G', components: [{ name: 'G', device_id: device }] });
      const theirs = await page(other.t, other.key, {
        slug: slug(),
        title: 'H',
        components: [{ name: 'H', device_id: await record(other.t, other.key, 'devices', 'h.acme.example.org') }],
      });
      const create = (body: unknown) => t.request('/v1/status-pages/notices/create', post(key, body));
      const good = { status_page_id: created.id, title: 'T', impact: 'none', status: 'identified', message: 'M' };
      assertValidation(await create({ ...good, impact: 'huge', status: 'done', message: '', title: null, extra: 1 }), [
        ['impact', 'invalid_value'],
        ['status', 'invalid_value'],
        ['message', 'invalid_value'],
        ['title', 'invalid_type'],
        ['extra', 'unknown_field'],
      ]);
      assertValidation(await create({ ...good, status_page_id: theirs.id }), [['status_page_id', 'invalid_value']]);
      assertValidation(await create({ ...good, component_indexes: [1] }), [['component_indexes', 'out_of_range']]);
      assertValidation(await create({ ...good, component_indexes: [0, 0] }), [['component_indexes', 'invalid_value']]);
      const notice = assertSuccess(await create(good), 201) as Notice;
      const update = (body: unknown) => t.request(`/v1/status-pages/notices/update?id=${notice.id}`, patch(key, body));
      assertValidation(await update({ status: 'resolved' }), [['message', 'missing']]);
      assertValidation(await update({ id: 1, updates: [], title: null, nope: 1 }), [
        ['id', 'read_only_field'],
        ['updates', 'read_only_field'],
        ['title', 'invalid_type'],
        ['nope', 'unknown_field'],
      ]);
      assertValidation(await update({ component_indexes: [3] }), [['component_indexes', 'out_of_range']]);
      assertValidation(await t.request('/v1/status-pages/notices', { key }), [['status_page_id', 'missing']]);
      assertValidation(await t.request('/v1/status-pages/notices?status_page_id=0&x=1', { key }), [
        ['status_page_id', 'out_of_range'],
        ['x', 'unknown_field'],
      ]);
      assertSuccess(await update({ title: 'T2' }), 200);
    });
  });
});

test("a component without a name takes its record's name, when records have one", async () => {
  // Devices gain `name` in a later version; a store whose records carry one shows what the route does with it.
  class NamingStore extends MemoryStore {
    override async componentRecords(userId: number, ids: ComponentIds) {
      const records = await super.componentRecords(userId, ids);
      return { ...records, devices: records.devices.map((d) => ({ ...d, name: `Device ${d.target_value}` })) };
    }
  }
  const t = createTestApi({ store: new NamingStore() });
  const key = await t.createKey();
  const device = await record(t, key, 'devices', 'named.acme.example.org');
  const created = await page(t, key, { slug: slug(), title: 'N', components: [{ device_id: device }] });
  assert.deepEqual(created.components, [{ name: 'Device named.acme.example.org', group: null, device_id: device }]);
  await t.close();
});
