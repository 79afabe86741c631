/**
 * docs/notifications.md: `POST /channels/test` on `monitoring-api serve`, sending through the
 * engine's channel kinds to a Slack fake on 127.0.0.1 that checks Block Kit, and refusing an email
 * channel (`email_unavailable`, nothing stored) on a server started without `--smtp-url`.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { bootstrapToken, startServe, stopServe } from '../support/cli.ts';
import type { FakeService } from '../support/fakes/fake-service.ts';
import { startFakeSlack } from '../support/fakes/slack.ts';

let dir: string;
let slack: FakeService;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'monitoring-channel-test-'));
  slack = await startFakeSlack();
});
after(async () => {
  await slack.close();
  await rm(dir, { recursive: true, force: true });
});

async function send(
  url: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; answer: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, answer: (await response.json()) as Record<string, unknown> };
}

it('sends a Slack test message at once, and refuses an email channel without --smtp-url', async () => {
  const server = await startServe(['--database', `sqlite:${join(dir, 'api.db')}`, '--allow-private-targets']);
  try {
    const token = bootstrapToken(server)!;
    const created = await send(`${server.url}/channels/create`, token, {
      name: 'ops',
      type: 'slack',
      config: { webhook_url: `http://127.0.0.1:${slack.port}/services/T000/B000/XXXXXXXX` },
    });
    assert.equal(created.status, 201, JSON.stringify(created.answer));
    const { id } = created.answer.data as { id: number };
    const tested = await send(`${server.url}/channels/test?id=${id}`, token);
    assert.equal(tested.status, 200, JSON.stringify(tested.answer));
    const result = tested.answer.data as Record<string, unknown>;
    assert.deepEqual([result.delivered, result.http_status, result.error], [true, 200, null]);
    assert.equal(slack.accepted.length, 1);
    assert.deepEqual(slack.refused, [], 'the message is Block Kit as Slack takes it');
    assert.equal(slack.accepted[0]!.path, '/services/T000/B000/XXXXXXXX');

    const email = await send(`${server.url}/channels/create`, token, {
      name: 'mail',
      type: 'email',
      config: { to: ['ops@example.org'] },
    });
    assert.equal(email.status, 400);
    assert.equal((email.answer.error as { code: string }).code, 'email_unavailable');
    const listed = await fetch(`${server.url}/channels`, { headers: { authorization: `Bearer ${token}` } });
    const channels = ((await listed.json()) as { data: { type: string }[] }).data;
    assert.deepEqual(
      channels.map((c) => c.type),
      ['slack'],
      'nothing stored',
    );
  } finally {
    assert.equal(await stopServe(server), 0);
  }
});
