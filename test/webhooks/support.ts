/**
 * What the webhook tests share: a stored webhook's id, and events put into a store's outbox the way
 * each store allows (the memory store through a recorded check, the SQL stores by a row in
 * `events`, until their engine methods land).
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventData, EventType, NewWebhook, Store } from '../../core/index.ts';
import { newMonitor } from '../support/records.ts';
import type { OpenedStore, StoreName } from '../support/stores.ts';

export const T0 = '2026-01-01T00:00:00.000Z';

export async function createdWebhookId(store: Store, userId: number, webhook: NewWebhook): Promise<number> {
  const result = await store.createWebhook(userId, webhook);
  assert.ok('created' in result, `expected a new webhook, got ${JSON.stringify(result)}`);
  return result.created.id;
}

/** A blacklist monitor's state as an event carries it. */
export function eventData(monitorId: number, previous: string | null, status: string): EventData {
  return {
    id: monitorId,
    ...newMonitor({
      target_value: 'listed.example.com',
      last_status: status === 'listed' ? 'listed' : 'clean',
      last_checked_at: T0,
      listed_on: status === 'listed' ? ['zen.spamhaus.org'] : [],
      created_at: T0,
    }),
    name: null,
    channel_ids: null,
    previous_status: previous,
    status,
  };
}

/** Puts an event of `userId` into the store's outbox and answers its id. */
export type Emit = (userId: number, type: EventType, createdAt?: string) => Promise<number>;

export function emitterFor(name: StoreName, opened: OpenedStore): Emit {
  if (name !== 'memory') {
    let next = 0;
    return async (userId, type, createdAt = T0) => {
      const id = ++next;
      const data = JSON.stringify(eventData(1, 'clean', 'listed')).replaceAll("'", "''");
      await opened.execute!(`insert into events (id, user_id, type, resource_kind, resource_id, created_at, data)
        values (${id}, ${userId}, '${type}', 'blacklist_monitor', 1, '${createdAt}', '${data}')`);
      return id;
    };
  }
  // The memory store's outbox is written only with a check, as the engine writes it.
  const store = opened.store;
  let events = 0;
  let targets = 0;
  return async (userId, type, createdAt = T0) => {
    const created = await store.createBlacklistMonitor(
      userId,
      newMonitor({ target_value: `t${++targets}.example.com`, created_at: T0 }),
    );
    assert.ok('created' in created);
    const [claimed] = await store.claimDueBlacklistMonitors({
      owner: 't',
      now: '2100-01-01T00:00:00.000Z',
      limit: 1,
      leaseUntil: '2100-01-02T00:00:00.000Z',
    });
    assert.ok(claimed);
    const [written] = await store.recordBlacklistChecks([
      {
        lease: claimed.lease,
        outcome: {
          checked_at: createdAt,
          last_status: 'listed',
          listed_on: ['zen.spamhaus.org'],
          failed_zones: [],
          results: [],
          next_check_at: '2100-01-01T01:00:00.000Z',
          listings: [],
          rdns: null,
          events: [{ type, created_at: createdAt, data: eventData(claimed.record.id, 'clean', 'listed') }],
        },
      },
    ]);
    assert.equal(written, true);
    return ++events;
  };
}

/** One request a receiver got. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook endpoint on 127.0.0.1: records each request and answers what `answer` says. */
export interface Receiver {
  port: number;
  received: Received[];
  /** Status for the next request (default 204); may also delay the answer. */
  answer: (request: Received) => number | Promise<number>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const receiver: Receiver = { port: 0, received, answer: () => 204, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const request = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      const status = await receiver.answer(request);
      if (!res.destroyed) res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
