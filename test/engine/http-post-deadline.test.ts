/**
 * postRequest's deadline (engine/net/http-post.ts) covers the whole attempt, the TLS handshake
 * included: an https endpoint that takes the connection and never speaks TLS ends the attempt
 * with `timeout` rather than holding it (and a dispatcher's slot) for as long as the socket lives.
 * A TCP server on 127.0.0.1 that says nothing; the name answered by the test's lookup.
 */
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { after, before, it } from 'node:test';
import { ProbeFailure } from '../../engine/net/connector.ts';
import { postRequest } from '../../engine/net/http-post.ts';
import { createTestConnector } from '../support/webhook-connector.ts';

const sockets = new Set<Socket>();
const silent = createServer((socket) => {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
});
let port = 0;
before(async () => {
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  port = (silent.address() as AddressInfo).port;
});
after(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

it('an https endpoint that never completes the handshake fails with timeout', async () => {
  const connector = createTestConnector({ lookup: async () => ['127.0.0.1'], allowPrivateTargets: true });
  let written = false;
  // The endpoint says nothing, ever: only the attempt's own deadline can end it.
  const attempt = postRequest(
    `https://hooks.example.com:${port}/x`,
    { body: '{}', headers: { 'content-type': 'application/json' } },
    { connector, timeoutMs: 200, onWritten: () => (written = true) },
  );
  await assert.rejects(attempt, (error: unknown) => error instanceof ProbeFailure && error.code === 'timeout');
  assert.equal(written, false, 'no request was written');
});
