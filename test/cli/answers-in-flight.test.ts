import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { it } from 'node:test';
import { AnswersInFlight } from '../../cli/server/answers-in-flight.ts';

function post(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ port, path, method: 'POST', agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

// The responses are kept in an array whose slots are reused (cli/server/answers-in-flight.ts): answers
// that finish in any order must leave exactly the others owed, and a shutdown answers those.
it('forgets answers that finished in any order and answers the ones still owed 500', async () => {
  const inFlight = new AnswersInFlight();
  const held = new Map<string, ServerResponse>();
  const server = createServer((req, res) => {
    inFlight.track(res);
    held.set(req.url!, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  try {
    const answers = ['/a', '/b', '/c', '/d'].map((path) => post(port, path));
    while (held.size < 4) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(inFlight.size, 4);
    for (const path of ['/b', '/a']) {
      const res = held.get(path)!;
      res.end('done');
      await once(res, 'close');
    }
    assert.equal(inFlight.size, 2);
    assert.equal(await inFlight.answerAllWithServerError(), 2);
    const [a, b, c, d] = await Promise.all(answers);
    assert.deepEqual([a!.status, b!.status], [200, 200]);
    for (const owed of [c!, d!]) {
      assert.equal(owed.status, 500);
      assert.equal(JSON.parse(owed.body).error.code, 'server_error');
    }
    while (inFlight.size > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
