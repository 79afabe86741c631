/**
 * docs/webhooks.md, "Webhooks": `POST /webhooks/test` on `monitoring-api serve`, against
 * a receiver on 127.0.0.1 that fails and then accepts. The event is signed as every delivery is
 * (checked by the independent `standardwebhooks` package), and the answer is the attempt's outcome.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { Webhook as Verifier } from 'standardwebhooks';
import { bootstrapToken, startServe, stopServe } from '../support/cli.ts';
import { freePort } from '../support/ports.ts';
import { startReceiver, type Receiver } from '../webhooks/support.ts';

let dir: string;
let receiver: Receiver;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'monitoring-webhook-test-'));
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await rm(dir, { recursive: true, force: true });
});

async function send(
  url: string,
  token: string,
  method: string,
  body?: unknown,
): Promise<{ status: number; data: Record<string, unknown> }> {
  const response = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const parsed = (await response.json()) as { data: Record<string, unknown> };
  return { status: response.status, data: parsed.data };
}

it('sends a signed webhook.test at once and answers how it went: failing, delivered, nobody listening', async () => {
  const server = await startServe(['--database', `sqlite:${join(dir, 'api.db')}`, '--allow-private-targets']);
  const token = bootstrapToken(server)!;
  const created = await send(`${server.url}/webhooks/create`, token, 'POST', {
    url: `http://127.0.0.1:${receiver.port}/hook`,
  });
  assert.equal(created.status, 201);
  const { id, secret } = created.data as { id: number; secret: string };

  receiver.answer = () => 500;
  const failing = await send(`${server.url}/webhooks/test?id=${id}`, token, 'POST');
  assert.equal(failing.status, 200);
  assert.deepEqual(
    { ...failing.data, duration_ms: typeof failing.data.duration_ms, attempted_at: typeof failing.data.attempted_at },
    { delivered: false, http_status: 500, error: 'http_500', duration_ms: 'number', attempted_at: 'string' },
  );

  receiver.answer = () => 204;
  const delivered = await send(`${server.url}/webhooks/test?id=${id}`, token, 'POST');
  assert.deepEqual([delivered.data.delivered, delivered.data.http_status, delivered.data.error], [true, 204, null]);
  assert.equal(receiver.received.length, 2);
  const last = receiver.received[1]!;
  const event = new Verifier(secret).verify(last.body, {
    'webhook-id': String(last.headers['webhook-id']),
    'webhook-timestamp': String(last.headers['webhook-timestamp']),
    'webhook-signature': String(last.headers['webhook-signature']),
  }) as { type: string; data: { webhook_id: number } };
  assert.deepEqual([event.type, event.data.webhook_id], ['webhook.test', id]);
  assert.match(String(last.headers['webhook-id']), /^test_[0-9a-f-]{36}$/);
  assert.notEqual(
    receiver.received[0]!.headers['webhook-id'],
    last.headers['webhook-id'],
    'each test is an event of its own',
  );

  // An endpoint nobody listens on: the refusal is the answer.
  const closed = await send(`${server.url}/webhooks/create`, token, 'POST', {
    url: `http://127.0.0.1:${await freePort()}/gone`,
  });
  const refused = await send(`${server.url}/webhooks/test?id=${(closed.data as { id: number }).id}`, token, 'POST');
  assert.deepEqual(
    [refused.status, refused.data.delivered, refused.data.http_status, refused.data.error],
    [200, false, null, 'ECONNREFUSED'],
  );
  // A test is not a delivery: nothing is listed as an attempt.
  assert.deepEqual((await send(`${server.url}/webhooks/deliveries?id=${id}`, token, 'GET')).data, []);
  assert.equal(await stopServe(server), 0);
});

it('serve without --allow-private-targets refuses a loopback endpoint by its policy', async () => {
  // The webhook is made while private targets are allowed; a server without them then refuses to send.
  const file = join(dir, 'policy.db');
  const open = await startServe(['--database', `sqlite:${file}`, '--allow-private-targets']);
  const token = bootstrapToken(open)!;
  const created = await send(`${open.url}/webhooks/create`, token, 'POST', {
    url: `http://127.0.0.1:${receiver.port}/strict`,
  });
  assert.equal(await stopServe(open), 0);
  const strict = await startServe(['--database', `sqlite:${file}`]);
  const before = receiver.received.length;
  const refused = await send(`${strict.url}/webhooks/test?id=${(created.data as { id: number }).id}`, token, 'POST');
  assert.deepEqual([refused.data.delivered, refused.data.error], [false, 'forbidden_address']);
  assert.equal(receiver.received.length, before, 'nothing was sent');
  assert.equal(await stopServe(strict), 0);
});
