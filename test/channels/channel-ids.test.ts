/**
 * A device's, a blacklist monitor's and a heartbeat's `name` and `channel_ids`
 * (docs/notifications.md, "Which channels"), on every store: given on create and PATCH, answered
 * by every route, judged against the caller's channels (another user's or an unknown id is 400
 * invalid_value, nothing stored), and a deleted channel taken out of every list.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { BlacklistMonitor, Channel, Device, Heartbeat } from '../../core/index.ts';
import type { TestApi } from '../../core/testing/index.ts';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import { assertSuccess, assertValidation, eachStore } from '../api/helpers.ts';
import { channelBody } from './support.ts';

/** Each kind of record that names channels: a create body, and another for a second record. */
const KINDS = [
  {
    segment: 'devices',
    body: { target_type: 'domain', target_value: 'shop.example.com' },
    second: { target_type: 'domain', target_value: 'www.example.com' },
  },
  {
    segment: 'blacklist-monitors',
    body: { target_type: 'ip', target_value: '8.8.8.8' },
    second: { target_type: 'ip', target_value: '8.8.4.4' },
  },
  { segment: 'heartbeats', body: { period_s: 3600 }, second: { schedule: '0 3 * * *' } },
] as const;

type Named = Device | BlacklistMonitor | Heartbeat;

async function channel(t: TestApi, key: CreatedApiKey, type: 'slack' | 'discord' = 'slack'): Promise<number> {
  return assertSuccess(
    await t.request<Channel>('/v1/channels/create', { method: 'POST', key, body: channelBody(type) }),
    201,
  ).id;
}

eachStore('devices, blacklist monitors and heartbeats: name and channel_ids', (env) => {
  for (const kind of KINDS) {
    it(`${kind.segment}: null by default; given on create, answered everywhere, changed by PATCH`, async () => {
      const { t, key } = await env.setup();
      const [a, b] = [await channel(t, key), await channel(t, key, 'discord')];
      const plain = assertSuccess(
        await t.request<Named>(`/v1/${kind.segment}/create`, {
          method: 'POST',
          key,
          body: kind.body,
        }),
        201,
      );
      assert.deepEqual([plain.name, plain.channel_ids], [null, null]);
      const named = assertSuccess(
        await t.request<Named>(`/v1/${kind.segment}/create`, {
          method: 'POST',
          key,
          body: {
            ...kind.second,
            name: 'Shop front',
            channel_ids: [b, a],
          },
        }),
        201,
      );
      assert.deepEqual([named.name, named.channel_ids], ['Shop front', [a, b]], 'ids are kept ascending');
      const listed = assertSuccess(await t.request<Named[]>(`/v1/${kind.segment}`, { key }), 200);
      assert.deepEqual(listed, [plain, named]);
      assert.deepEqual(assertSuccess(await t.request(`/v1/${kind.segment}/get?id=${named.id}`, { key }), 200), named);

      const none = assertSuccess(
        await t.request<Named>(`/v1/${kind.segment}/update?id=${plain.id}`, {
          method: 'PATCH',
          key,
          body: { channel_ids: [], name: 'Quiet one' },
        }),
        200,
      );
      assert.deepEqual([none.name, none.channel_ids], ['Quiet one', []]);
      // Naming and routing change nothing the engine checks: a device stays as it was.
      if ('status' in plain) assert.equal((none as Device).status, plain.status);
      const back = assertSuccess(
        await t.request<Named>(`/v1/${kind.segment}/update?id=${plain.id}`, {
          method: 'PATCH',
          key,
          body: { channel_ids: null, name: null },
        }),
        200,
      );
      assert.deepEqual([back.name, back.channel_ids], [null, null]);
    });

    it(`${kind.segment}: bad names and ids, another user's channel and an unknown id are refused, nothing stored`, async () => {
      const { t, key } = await env.setup();
      const other = await t.createKey();
      const mine = await channel(t, key);
      const theirs = await channel(t, other);
      const post = (extra: Record<string, unknown>) =>
        t.request(`/v1/${kind.segment}/create`, { method: 'POST', key, body: { ...kind.body, ...extra } });
      assertValidation(await post({ name: '' }), [['name', 'invalid_value']]);
      assertValidation(await post({ name: 'n'.repeat(101) }), [['name', 'too_long']]);
      assertValidation(await post({ name: 7 }), [['name', 'invalid_type']]);
      assertValidation(await post({ channel_ids: 'all' }), [['channel_ids', 'invalid_type']]);
      assertValidation(await post({ channel_ids: [mine, mine] }), [['channel_ids', 'invalid_value']]);
      assertValidation(await post({ channel_ids: [0] }), [['channel_ids', 'out_of_range']]);
      assertValidation(await post({ channel_ids: ['1'] }), [['channel_ids', 'invalid_type']]);
      assertValidation(await post({ channel_ids: Array.from({ length: 101 }, (_, i) => i + 1) }), [
        ['channel_ids', 'out_of_range'],
      ]);
      const foreign = await post({ channel_ids: [mine, theirs, theirs + 1000] });
      assertValidation(foreign, [['channel_ids', 'invalid_value']]);
      const messages = foreign.body.error!.details!.map((d) => d.message);
      assert.deepEqual(messages, [
        `channel_ids: ${theirs} is not the id of one of your channels.`,
        `channel_ids: ${theirs + 1000} is not the id of one of your channels.`,
      ]);
      assert.deepEqual(assertSuccess(await t.request(`/v1/${kind.segment}`, { key }), 200), [], 'nothing was stored');

      const record = assertSuccess(
        await t.request<Named>(`/v1/${kind.segment}/create`, {
          method: 'POST',
          key,
          body: { ...kind.body, channel_ids: [mine] },
        }),
        201,
      );
      assertValidation(
        await t.request(`/v1/${kind.segment}/update?id=${record.id}`, {
          method: 'PATCH',
          key,
          body: { channel_ids: [mine, theirs], name: 'changed' },
        }),
        [['channel_ids', 'invalid_value']],
      );
      assert.deepEqual(
        assertSuccess(await t.request(`/v1/${kind.segment}/get?id=${record.id}`, { key }), 200),
        record,
        'nothing changed',
      );
    });
  }

  it("deleting a channel takes it out of every list of its user's devices, blacklist monitors and heartbeats", async () => {
    const { t, key } = await env.setup();
    const other = await t.createKey();
    const [a, b, c] = [await channel(t, key), await channel(t, key), await channel(t, key)];
    const theirs = await channel(t, other);
    const made = async (segment: string, body: Record<string, unknown>, k = key) =>
      assertSuccess(await t.request<Device>(`/v1/${segment}/create`, { method: 'POST', key: k, body }), 201).id;
    const d1 = await made('devices', { target_type: 'domain', target_value: 'a.example.com', channel_ids: [a, b] });
    const d2 = await made('devices', { target_type: 'domain', target_value: 'b.example.com', channel_ids: [b] });
    const d3 = await made('devices', { target_type: 'domain', target_value: 'c.example.com', channel_ids: [a, c] });
    const d4 = await made('devices', { target_type: 'domain', target_value: 'd.example.com' });
    const m1 = await made('blacklist-monitors', { target_type: 'ip', target_value: '1.1.1.1', channel_ids: [c, b, a] });
    const h1 = await made('heartbeats', { period_s: 3600, channel_ids: [b, c] });
    const h2 = await made('heartbeats', { period_s: 3600, channel_ids: [b] });
    const t1 = await made(
      'devices',
      { target_type: 'domain', target_value: 'a.example.com', channel_ids: [theirs] },
      other,
    );
    assertSuccess(await t.request(`/v1/channels/delete?id=${b}`, { method: 'DELETE', key }), 200);
    const ids = async (segment: string, id: number, k = key) =>
      assertSuccess(await t.request<Device>(`/v1/${segment}/get?id=${id}`, { key: k }), 200).channel_ids;
    assert.deepEqual(await ids('devices', d1), [a]);
    assert.deepEqual(await ids('devices', d2), []);
    assert.deepEqual(await ids('devices', d3), [a, c]);
    assert.deepEqual(await ids('devices', d4), null);
    assert.deepEqual(await ids('blacklist-monitors', m1), [a, c]);
    assert.deepEqual(await ids('heartbeats', h1), [c]);
    assert.deepEqual(await ids('heartbeats', h2), []);
    assert.deepEqual(await ids('devices', t1, other), [theirs]);
    // A list that no longer names it can name other channels still: the ids left are judged as before.
    assertSuccess(
      await t.request(`/v1/devices/update?id=${d2}`, { method: 'PATCH', key, body: { channel_ids: [a, c] } }),
      200,
    );
    assertValidation(
      await t.request(`/v1/devices/update?id=${d2}`, { method: 'PATCH', key, body: { channel_ids: [b] } }),
      [['channel_ids', 'invalid_value']],
    );
    // A list the API last answered (its guess for the next change) that named the deleted channel
    // does not bring it back: every id a change gives is looked up.
    assertSuccess(await t.request(`/v1/devices/get?id=${d3}`, { key }), 200);
    assertSuccess(await t.request(`/v1/channels/delete?id=${c}`, { method: 'DELETE', key }), 200);
    assertValidation(
      await t.request(`/v1/devices/update?id=${d3}`, { method: 'PATCH', key, body: { channel_ids: [a, c] } }),
      [['channel_ids', 'invalid_value']],
    );
    const renamed = assertSuccess(
      await t.request<Device>(`/v1/devices/update?id=${d3}`, { method: 'PATCH', key, body: { name: 'C' } }),
      200,
    );
    assert.deepEqual([renamed.name, renamed.channel_ids], ['C', [a]]);
  });
});
