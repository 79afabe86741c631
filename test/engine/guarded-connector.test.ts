/**
 * docs/engine.md, "Outbound safety": every address a name resolves to is judged by the target
 * policy, the connection is pinned to a judged address, and loopback is reached only with
 * allowPrivateTargets. Names are answered by an injected lookup; servers listen on loopback.
 */
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ProbeFailure, type HostLookup } from '../../engine/index.ts';
import { createGuardedConnector } from '../../engine/net/guarded-connector.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';

/**
 * The lookup and connect timeouts of tests about something else: the test's hang guard, so that
 * none of them ends an attempt on a busy machine, and none is what a test waits out.
 */
const LIMIT_MS = HANG_GUARD_MS;

let server: Server;
let port: number;
before(async () => {
  server = createServer((socket) => {
    // Tests close their end first at times; a reset here is theirs, not a failure.
    socket.on('error', () => undefined);
    socket.end('hello\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

function lookupOf(table: Record<string, string[]>) {
  const asked: string[] = [];
  const lookup: HostLookup = async (name) => {
    asked.push(name);
    const found = table[name];
    if (found === undefined) throw Object.assign(new Error(`queryA ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return found;
  };
  return { lookup, asked };
}

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ProbeFailure, `a ProbeFailure, not ${String(error)}`);
    return error.code;
  }
  assert.fail('expected a failure');
}

describe('the guarded connector', () => {
  it('refuses a name that resolves to loopback', async () => {
    const { lookup } = lookupOf({ 'sneaky.example.com': ['127.0.0.1'] });
    const connector = createGuardedConnector({ lookup, lookupTimeoutMs: LIMIT_MS });
    const refused = connector.connect({ host: 'sneaky.example.com', port, timeoutMs: LIMIT_MS });
    assert.equal(await failure(refused), 'forbidden_address');
    assert.equal(await failure(connector.resolve('sneaky.example.com')), 'forbidden_address');
  });

  it('judges every address: one private address among public ones refuses the name', async () => {
    const { lookup } = lookupOf({
      'mixed.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '10.0.0.5'],
    });
    const connector = createGuardedConnector({ lookup, lookupTimeoutMs: LIMIT_MS });
    assert.equal(await failure(connector.resolve('mixed.example.com')), 'forbidden_address');
    const { lookup: publicOnly } = lookupOf({
      'fine.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    });
    const judged = createGuardedConnector({ lookup: publicOnly, lookupTimeoutMs: LIMIT_MS });
    assert.deepEqual(await judged.resolve('fine.example.com'), [
      '93.184.215.14',
      '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
    ]);
  });

  it('judges IPv4-mapped IPv6 as the IPv4 address it is', async () => {
    const { lookup } = lookupOf({
      'mapped.example.com': ['::ffff:127.0.0.1'],
      'mapped-hex.example.com': ['::ffff:7f00:1'],
    });
    const guarded = createGuardedConnector({ lookup, lookupTimeoutMs: LIMIT_MS });
    assert.equal(await failure(guarded.resolve('mapped.example.com')), 'forbidden_address');
    assert.equal(await failure(guarded.resolve('mapped-hex.example.com')), 'forbidden_address');
    const literal = guarded.connect({ host: '::ffff:127.0.0.1', port, timeoutMs: LIMIT_MS });
    assert.equal(await failure(literal), 'forbidden_address');
    const open = createGuardedConnector({ lookup, lookupTimeoutMs: LIMIT_MS, allowPrivateTargets: true });
    const connection = await open.connect({ host: 'mapped.example.com', port, timeoutMs: LIMIT_MS });
    assert.equal(connection.address, '127.0.0.1', 'connected over IPv4');
    connection.socket.destroy();
  });

  it('refuses IP literals and special-use names under the policy without asking the lookup', async () => {
    const { lookup, asked } = lookupOf({ localhost: ['127.0.0.1'], 'printer.local': ['192.0.2.7'] });
    const connector = createGuardedConnector({ lookup, lookupTimeoutMs: LIMIT_MS });
    for (const host of ['127.0.0.1', '::1', '[::1]', '169.254.169.254', 'localhost', 'printer.local']) {
      assert.equal(await failure(connector.connect({ host, port, timeoutMs: LIMIT_MS })), 'forbidden_address', host);
    }
    assert.deepEqual(asked, []);
  });

  it('with allowPrivateTargets connects to the one address it resolved, without resolving again', async () => {
    const { lookup, asked } = lookupOf({ 'db.internal': ['127.0.0.1'] });
    const connector = createGuardedConnector({ lookup, lookupTimeoutMs: LIMIT_MS, allowPrivateTargets: true });
    const { socket, address } = await connector.connect({ host: 'db.internal', port, timeoutMs: LIMIT_MS });
    assert.equal(address, '127.0.0.1');
    assert.equal(socket.remoteAddress, '127.0.0.1');
    const greeting = await new Promise<string>((resolve) =>
      socket.once('data', (chunk: Buffer) => resolve(chunk.toString())),
    );
    assert.equal(greeting, 'hello\n');
    socket.destroy();
    assert.deepEqual(asked, ['db.internal'], 'asked once');
  });

  it('names the failure: dns_error for a name without address, the system code for a refused port', async () => {
    const { lookup } = lookupOf({ 'empty.example.com': [] });
    const connector = createGuardedConnector({ lookup, lookupTimeoutMs: LIMIT_MS, allowPrivateTargets: true });
    for (const host of ['nowhere.example.com', 'empty.example.com']) {
      assert.equal(await failure(connector.connect({ host, port, timeoutMs: LIMIT_MS })), 'dns_error', host);
    }
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refusedPort = connector.connect({ host: '127.0.0.1', port: closedPort, timeoutMs: LIMIT_MS });
    assert.equal(await failure(refusedPort), 'ECONNREFUSED');
  });

  it(
    'a lookup that never answers fails with timeout; an abort stops the attempt',
    { timeout: HANG_GUARD_MS },
    async () => {
      const never = () => new Promise<string[]>(() => undefined);
      // The lookup's own timeout ends it: the connect's is the test's hang guard.
      const connector = createGuardedConnector({ lookup: never, lookupTimeoutMs: 30 });
      const timedOut = connector.connect({ host: 'slow.example.com', port, timeoutMs: HANG_GUARD_MS });
      assert.equal(await failure(timedOut), 'timeout');
      // Only the abort can end this one: both timeouts are the hang guard.
      const unbounded = createGuardedConnector({ lookup: never, lookupTimeoutMs: HANG_GUARD_MS });
      const controller = new AbortController();
      const attempt = unbounded.connect({
        host: 'slow.example.com',
        port,
        timeoutMs: HANG_GUARD_MS,
        signal: controller.signal,
      });
      controller.abort();
      assert.equal(await failure(attempt), 'aborted');
    },
  );

  it(
    'hands each socket to onSocket as it is made; ' + 'destroying it before it connects ends the attempt with aborted',
    { timeout: LIMIT_MS },
    async () => {
      const connector = createGuardedConnector({
        lookup: lookupOf({}).lookup,
        lookupTimeoutMs: LIMIT_MS,
        allowPrivateTargets: true,
      });
      const handed: Socket[] = [];
      const attempt = connector.connect({
        host: '127.0.0.1',
        port,
        onSocket: (socket) => {
          handed.push(socket);
          socket.destroy();
        },
      });
      assert.equal(await failure(attempt), 'aborted');
      assert.equal(handed.length, 1);
      // Without a timeout of its own, a connection that does complete is still handed over whole.
      const sockets: Socket[] = [];
      const { socket } = await connector.connect({ host: '127.0.0.1', port, onSocket: (s) => void sockets.push(s) });
      assert.equal(sockets[0], socket);
      socket.destroy();
    },
  );
});
