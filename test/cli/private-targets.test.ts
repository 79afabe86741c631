/**
 * docs/contract.md §5, the target policy, as a newcomer meets it: after `npm start`, a loopback or
 * private target is refused with `forbidden_target`, and the detail's message says how a server
 * allows such targets, in words right for both ways of running the API: the library's option and
 * the command's flag. Each named way is then taken, and lets the same target in.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createMonitoringApi, MemoryStore, type MonitoringApiOptions } from '../../core/index.ts';
import { bootstrapToken, startServe, stopServe } from '../support/cli.ts';

const TARGET = { target_type: 'ip', target_value: '127.0.0.1' };

interface Answer {
  status: number;
  body: { success: boolean; error?: { code: string; details?: { field: string; code: string; message: string }[] } };
}

async function createDevice(url: string, token: string): Promise<Answer> {
  const response = await fetch(`${url}/devices/create`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(TARGET),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

it('forbidden_target names the option and the flag that allow private targets, and each does', async () => {
  const server = await startServe(['--database', 'sqlite::memory:']);
  let message: string;
  try {
    const refused = await createDevice(server.url, bootstrapToken(server)!);
    assert.equal(refused.status, 400);
    // The contract's shape, unchanged: validation_failed, one detail per problem.
    assert.equal(refused.body.error?.code, 'validation_failed');
    assert.equal(refused.body.error?.details?.length, 1);
    const detail = refused.body.error!.details![0]!;
    assert.deepEqual([detail.field, detail.code], ['target_value', 'forbidden_target']);
    message = detail.message;
    assert.match(message, /^target_value is not a publicly routable target/);
  } finally {
    assert.equal(await stopServe(server), 0);
  }

  // The command's flag, as the message spells it.
  const flag = /(--[a-z][a-z-]*)/.exec(message)?.[1];
  assert.equal(flag, '--allow-private-targets', message);
  const allowing = await startServe(['--database', 'sqlite::memory:', flag]);
  try {
    const accepted = await createDevice(allowing.url, bootstrapToken(allowing)!);
    assert.equal(accepted.status, 201, JSON.stringify(accepted.body));
  } finally {
    assert.equal(await stopServe(allowing), 0);
  }

  // The library's option, as the message spells it, for a host that embeds the core.
  const option = /\b(allow[A-Z][A-Za-z]*)\b/.exec(message)?.[1];
  assert.equal(option, 'allowPrivateTargets', message);
  const api = createMonitoringApi({
    store: new MemoryStore(),
    [option]: true,
  } as MonitoringApiOptions);
  try {
    const user = await api.keys.createUser({ name: 'host' });
    const { token } = await api.keys.createApiKey({ userId: user.id, scopes: ['write'] });
    const response = await api.fetch(
      new Request('http://localhost/v1/devices/create', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(TARGET),
      }),
      { clientAddress: '127.0.0.1' },
    );
    assert.equal(response.status, 201, await response.clone().text());
  } finally {
    await api.close();
  }
});
