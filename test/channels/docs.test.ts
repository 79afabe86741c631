/**
 * docs/notifications.md held to the code: its route table names exactly the routes under
 * /channels, its type table every channel type, and each example create body is accepted as
 * written, one per type, answered as its "Secrets" example shows a channel.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CHANNEL_TYPES, type Channel } from '../../core/index.ts';
import { ROUTES } from '../../core/internal.ts';
import { createTestApi, type TestApi } from '../../core/testing/index.ts';
import { doc, jsonBlocks, quoted, section, sorted, tableRows } from '../docs/markdown.ts';
import { loopbackSender, showsSecret } from './support.ts';

const notifications = doc('notifications.md');

it('"Channels" has a row for every route under /channels, and no other', () => {
  const listed = tableRows(section(notifications, 'Channels')).map(
    (row) => `${row[0]} ${quoted(row[1]!)[0]!.replace(/\?.*$/, '')}`,
  );
  assert.deepEqual(
    sorted(listed),
    sorted(ROUTES.filter((route) => route.path.split('/')[1] === 'channels').map((r) => `${r.method} ${r.path}`)),
  );
});

it('"Channel types" names every type once, with an example create body each that the API accepts', async () => {
  const types = section(notifications, 'Channel types');
  assert.deepEqual(
    tableRows(types).map((row) => quoted(row[0]!)[0]),
    [...CHANNEL_TYPES],
  );
  const examples = jsonBlocks(types) as Record<string, unknown>[];
  assert.deepEqual(
    examples.map((body) => body.type),
    [...CHANNEL_TYPES],
  );
  const t: TestApi = createTestApi({ channelSender: loopbackSender(true, () => '2026-11-22T07:00:00.000Z') });
  try {
    const key = await t.createKey();
    const created: Channel[] = [];
    for (const body of examples) {
      const res = await t.request<Channel>('/v1/channels/create', { method: 'POST', key, body });
      assert.equal(res.status, 201, `${String(body.type)}: ${res.text}`);
      assert.equal(showsSecret(res.text), undefined);
      created.push(res.body.data!);
    }
    // The example answer of "Secrets" is the slack example as the API answers it.
    const [answer] = jsonBlocks(section(notifications, 'Secrets')) as Channel[];
    const slack = created.find((channel) => channel.type === 'slack')!;
    assert.deepEqual({ ...slack, id: answer!.id, created_at: answer!.created_at }, answer);
  } finally {
    await t.close();
  }
});
