import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createTestApi } from '../../core/testing/index.ts';

// A client that disconnects mid-body breaks the body stream: that is a failed request, answered
// (if anyone still listens) as unreadable input, and never logged as a server failure.
it('a body stream that breaks is 400 invalid_json, not a 500', async () => {
  const logged: string[] = [];
  const t = createTestApi({ logger: { error: (message) => logged.push(message) } });
  const key = await t.createKey();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"target_type":'));
      controller.error(new Error('aborted'));
    },
  });
  const response = await t.api.fetch(
    new Request('http://api.test/v1/devices/create', {
      method: 'POST',
      body,
      duplex: 'half',
      headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' },
    } as RequestInit),
    { clientAddress: '127.0.0.1' },
  );
  assert.equal(response.status, 400);
  assert.equal((await response.json()).error.code, 'invalid_json');
  assert.deepEqual(logged, []);
});
