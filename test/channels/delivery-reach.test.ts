/**
 * Whether a channel message's attempt may have reached the service (engine/channels/
 * channel-delivery.ts, ChannelSendResult.reached; docs/notifications.md, "Reminders, escalation
 * and acknowledgement"): delivered, answered 5xx, or written whole with no answer, it may have; a
 * refusal (4xx) or a refused connection, it did not. A Slack message to servers on 127.0.0.1,
 * names answered by the test's lookup.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Notification } from '../../core/internal.ts';
import { channelDeliveryFrom } from '../../engine/channels/channel-sender.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';
import { freePort } from '../support/ports.ts';
import { LOOPBACK, T0 } from './message-fixtures.ts';

const NOTIFICATION: Notification = { at: T0, items: [{ reason: 'test', channel: { id: 1, name: 'ops' } }], total: 1 };

const slackAt = (port: number) => ({
  type: 'slack' as const,
  config: { webhook_url: `http://hooks.slack.com:${port}/services/T000/B000/XXXXXXXX` },
});

describe('whether a channel message may have reached the service', () => {
  let server: Server;
  let port: number;
  /** What the server does with the next request: answer a status, or read it and drop the connection. */
  let next: number | 'dropped' = 200;
  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (next === 'dropped') {
          req.socket.destroy();
          return;
        }
        res.writeHead(next, { 'content-type': 'text/plain' }).end(next === 200 ? 'ok' : 'no');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  // No attempt here waits on a timeout: each is answered, dropped or refused.
  const patient = channelDeliveryFrom({ lookup: LOOPBACK, allowPrivateTargets: true, timeoutMs: HANG_GUARD_MS });

  for (const [status, reached] of [
    [200, true],
    [503, true],
    [500, true],
    [429, false],
    [400, false],
    [404, false],
  ] as const) {
    it(`answered ${status}: ${reached ? 'may have' : 'did not'}`, async () => {
      next = status;
      const sent = await patient.deliver(slackAt(port), NOTIFICATION);
      assert.equal(sent.httpStatus, status);
      assert.equal(sent.reached, reached);
    });
  }

  it('written whole, then the connection dropped without an answer: may have', async () => {
    next = 'dropped';
    const sent = await patient.deliver(slackAt(port), NOTIFICATION);
    assert.deepEqual([sent.httpStatus, sent.verdict.outcome, sent.reached], [null, 'retry', true]);
  });

  it('a refused connection: did not', async () => {
    const sent = await patient.deliver(slackAt(await freePort()), NOTIFICATION);
    assert.deepEqual([sent.httpStatus, sent.verdict.outcome, sent.reached], [null, 'retry', false]);
  });
});
