/**
 * docs/heartbeats.md, "The resource": /heartbeats with its fields, defaults and validation, on
 * every store; `ping_url` for write keys only; `rotate_token`.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Heartbeat, HeartbeatPing } from '../../core/index.ts';
import { eachStore, validationOnly } from '../api/helpers.ts';

const TOKEN_URL =
  /^http:\/\/monitoring\.test\/ping\/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

eachStore('heartbeats as a resource', (env) => {
  it('creates a heartbeat with its defaults, new and awaiting nothing, and lists, gets and deletes it', async () => {
    const { t, key } = await env.setup();
    const created = await t.request<Heartbeat>('/v1/heartbeats/create', {
      method: 'POST',
      key,
      body: { period_s: 3600 },
    });
    assert.equal(created.status, 201);
    const heartbeat = created.body.data!;
    assert.match(heartbeat.ping_url!, TOKEN_URL);
    assert.deepEqual(
      { ...heartbeat, id: 0, ping_url: '' },
      {
        id: 0,
        name: null,
        period_s: 3600,
        schedule: null,
        time_zone: 'UTC',
        grace_s: 300,
        max_runtime_s: null,
        min_runtime_s: null,
        is_enabled: true,
        channel_ids: null,
        ping_url: '',
        status: 'new',
        status_since: '2026-01-01T00:00:00.000Z',
        last_ping_at: null,
        last_duration_ms: null,
        next_due_at: null,
        created_at: '2026-01-01T00:00:00.000Z',
      },
    );
    const listed = await t.request<Heartbeat[]>('/v1/heartbeats', { key });
    assert.deepEqual(listed.body.data, [heartbeat]);
    assert.deepEqual((await t.request('/v1/heartbeats/get?id=' + heartbeat.id, { key })).body.data, heartbeat);
    const removed = await t.request(`/v1/heartbeats/delete?id=${heartbeat.id}`, { method: 'DELETE', key });
    assert.deepEqual(removed.body.data, { id: heartbeat.id, deleted: true });
    assert.equal((await t.ping(heartbeat.ping_url!)).status, 404, 'a deleted heartbeat has no ping URL');
    assert.equal((await t.request(`/v1/heartbeats/get?id=${heartbeat.id}`, { key })).status, 404);
  });

  it('shows ping_url to write keys only, under publicUrl when the host gives one', async () => {
    const t = env.api({ publicUrl: 'https://hc.example.com/' });
    const writer = await t.createKey();
    const reader = await t.createKey({ userId: writer.key.user_id, scopes: ['read'] });
    const created = await t.request<Heartbeat>('/v1/heartbeats/create', {
      method: 'POST',
      key: writer,
      body: { schedule: '0 3 * * *', time_zone: 'Europe/Berlin', name: 'nightly backup' },
    });
    assert.match(created.body.data!.ping_url!, /^https:\/\/hc\.example\.com\/ping\/[0-9a-f-]{36}$/);
    const read = await t.request<Heartbeat>(`/v1/heartbeats/get?id=${created.body.data!.id}`, { key: reader });
    assert.equal(read.status, 200);
    assert.equal('ping_url' in read.body.data!, false);
    const list = await t.request<Heartbeat[]>('/v1/heartbeats', { key: reader });
    assert.equal('ping_url' in list.body.data![0]!, false);
  });

  it('rotate_token gives a new token at once: the old ping URL is 404 from then on', async () => {
    const { t, key } = await env.setup();
    const created = (
      await t.request<Heartbeat>('/v1/heartbeats/create', { method: 'POST', key, body: { period_s: 60 } })
    ).body.data!;
    assert.equal((await t.ping(created.ping_url!)).status, 200);
    const rotated = await t.request<Heartbeat>(`/v1/heartbeats/update?id=${created.id}`, {
      method: 'PATCH',
      key,
      body: { rotate_token: true },
    });
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.data!.ping_url, created.ping_url);
    assert.equal((await t.ping(created.ping_url!)).status, 404);
    assert.equal((await t.ping(rotated.body.data!.ping_url!)).status, 200);
  });

  it('keeps each ping, newest first, with what the request said', async () => {
    const { t, key } = await env.setup();
    const hb = (await t.request<Heartbeat>('/v1/heartbeats/create', { method: 'POST', key, body: { period_s: 60 } }))
      .body.data!;
    const rid = '8ec7a0b4-2b3e-4f3a-9b1c-1e2d3c4b5a69';
    await t.ping(`${hb.ping_url}/start?rid=${rid.toUpperCase()}`, { headers: { 'user-agent': 'cron/1' } });
    t.clock.advance(1500);
    await t.ping(`${hb.ping_url}/0?rid=${rid}`, { body: 'backup done\n' });
    const pings = await t.request<HeartbeatPing[]>(`/v1/heartbeats/results?id=${hb.id}`, { key });
    assert.equal(pings.status, 200);
    assert.deepEqual(
      pings.body.data!.map(({ id: _id, ...rest }) => rest),
      [
        {
          kind: 'exit',
          exit_status: 0,
          received_at: '2026-01-01T00:00:01.500Z',
          duration_ms: 1500,
          remote_addr: '127.0.0.1',
          user_agent: null,
          body: 'backup done\n',
          rid,
        },
        {
          kind: 'start',
          exit_status: null,
          received_at: '2026-01-01T00:00:00.000Z',
          duration_ms: null,
          remote_addr: '127.0.0.1',
          user_agent: 'cron/1',
          body: null,
          rid,
        },
      ],
    );
    const shown = (await t.request<Heartbeat>(`/v1/heartbeats/get?id=${hb.id}`, { key })).body.data!;
    assert.equal(shown.status, 'up');
    assert.equal(shown.last_duration_ms, 1500);
    assert.equal(shown.next_due_at, '2026-01-01T00:06:01.500Z', 'the last success + period + grace');
    const page = await t.request<HeartbeatPing[]>(`/v1/heartbeats/results?id=${hb.id}&limit=1`, { key });
    assert.match(page.headers.get('link')!, /before_id=\d+>; rel="next"$/);
  });

  it('a paused heartbeat records its pings and stays paused; enabled again it is new', async () => {
    const { t, key } = await env.setup();
    const hb = (
      await t.request<Heartbeat>('/v1/heartbeats/create', {
        method: 'POST',
        key,
        body: { period_s: 60, is_enabled: false },
      })
    ).body.data!;
    assert.equal(hb.status, 'paused');
    assert.equal((await t.ping(`${hb.ping_url}/fail`)).status, 200);
    let shown = (await t.request<Heartbeat>(`/v1/heartbeats/get?id=${hb.id}`, { key })).body.data!;
    assert.equal(shown.status, 'paused');
    assert.equal(shown.last_ping_at, '2026-01-01T00:00:00.000Z');
    t.clock.advance(1000);
    const resumed = await t.request<Heartbeat>(`/v1/heartbeats/update?id=${hb.id}`, {
      method: 'PATCH',
      key,
      body: { is_enabled: true },
    });
    shown = resumed.body.data!;
    assert.equal(shown.status, 'new');
    assert.equal(shown.status_since, '2026-01-01T00:00:01.000Z');
    assert.equal(shown.next_due_at, null);
  });

  validationOnly(env, () => {
    it('refuses bad input with one detail each, and creates nothing', async () => {
      const { t, key } = await env.setup();
      const cases: [Record<string, unknown>, [string, string][]][] = [
        [{}, [['period_s', 'missing']]],
        [{ period_s: 60, schedule: '* * * * *' }, [['schedule', 'not_applicable']]],
        [{ schedule: '0 0 30 2 *' }, [['schedule', 'invalid_value']]],
        [{ schedule: 'every day' }, [['schedule', 'invalid_value']]],
        [{ schedule: '@daily' }, [['schedule', 'invalid_value']]],
        [{ schedule: '0 0 * * * *' }, [['schedule', 'invalid_value']]],
        [{ schedule: '0 3 * * *', time_zone: 'Mars/Olympus' }, [['time_zone', 'invalid_value']]],
        [{ period_s: 59 }, [['period_s', 'out_of_range']]],
        [{ period_s: 31_536_001 }, [['period_s', 'out_of_range']]],
        [{ period_s: 60, grace_s: 10 }, [['grace_s', 'out_of_range']]],
        [{ period_s: 60, min_runtime_s: 60, max_runtime_s: 60 }, [['min_runtime_s', 'invalid_value']]],
        [{ period_s: 60, name: '' }, [['name', 'invalid_value']]],
        [{ period_s: 60, name: 'x'.repeat(101) }, [['name', 'too_long']]],
        [{ period_s: 60, channel_ids: 'all' }, [['channel_ids', 'invalid_type']]],
        [{ period_s: 60, channel_ids: [1, 1] }, [['channel_ids', 'invalid_value']]],
        [{ period_s: 60, channel_ids: [9999] }, [['channel_ids', 'invalid_value']]],
        [{ period_s: 60, ping_url: 'x' }, [['ping_url', 'unknown_field']]],
      ];
      for (const [body, expected] of cases) {
        const answer = await t.request('/v1/heartbeats/create', { method: 'POST', key, body });
        assert.equal(answer.status, 400, JSON.stringify(body));
        assert.equal(answer.body.error!.code, 'validation_failed');
        assert.deepEqual(
          answer.body.error!.details!.map((d) => [d.field, d.code]),
          expected,
          JSON.stringify(body),
        );
      }
      assert.deepEqual((await t.request('/v1/heartbeats', { key })).body.data, []);
    });

    it('a PATCH is judged as a create of the record it makes; read-only fields are refused', async () => {
      const { t, key } = await env.setup();
      const hb = (await t.request<Heartbeat>('/v1/heartbeats/create', { method: 'POST', key, body: { period_s: 60 } }))
        .body.data!;
      const both = await t.request(`/v1/heartbeats/update?id=${hb.id}`, {
        method: 'PATCH',
        key,
        body: { schedule: '*/5 * * * *' },
      });
      assert.deepEqual(
        both.body.error!.details!.map((d) => [d.field, d.code]),
        [['schedule', 'not_applicable']],
      );
      const switched = await t.request<Heartbeat>(`/v1/heartbeats/update?id=${hb.id}`, {
        method: 'PATCH',
        key,
        body: { schedule: '*/5 * * * *', period_s: null },
      });
      assert.equal(switched.status, 200);
      assert.equal(switched.body.data!.schedule, '*/5 * * * *');
      const readOnly = await t.request(`/v1/heartbeats/update?id=${hb.id}`, {
        method: 'PATCH',
        key,
        body: { status: 'up', ping_url: 'x' },
      });
      assert.deepEqual(
        readOnly.body.error!.details!.map((d) => [d.field, d.code]),
        [
          ['status', 'read_only_field'],
          ['ping_url', 'read_only_field'],
        ],
      );
    });
  });
});
