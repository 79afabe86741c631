/**
 * The example webhook payloads of docs/webhooks.md are what the engine sends. Each JSON block with a
 * `type` is an event example: it must parse, its record must be one a create of its own fields
 * answers (so its defaults are the API's), and it must have exactly the keys, at every depth, of
 * the same event made by the engine: a record created through the API from the example's fields,
 * checked by engines on a SQLite store, and the body the webhook receiver got.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { EVENT_TYPES, type BlacklistMonitor, type Device, type EventType, type Heartbeat } from '../../core/index.ts';
import { createOpenApiDocument } from '../../core/openapi/index.ts';
import type { DnsblResolver } from '../../engine/index.ts';
import { openWorld, type Receiver, type World } from '../e2e/harness.ts';
import { freePort } from '../support/ports.ts';
import { availableStores, type OpenedStore } from '../support/stores.ts';
import { doc, jsonBlocks } from './markdown.ts';

interface Example {
  type: EventType;
  timestamp: string;
  data: Record<string, unknown>;
}

const EXAMPLES = jsonBlocks(doc('webhooks.md')).filter(
  (block): block is Example => typeof block === 'object' && block !== null && 'type' in block,
);
const example = (type: EventType): Example => {
  const found = EXAMPLES.filter((e) => e.type === type);
  assert.equal(found.length, 1, `docs/webhooks.md has one ${type} example`);
  return found[0]!;
};

/** The fields a create takes, by the request schemas the API validates with. */
const schemas = (createOpenApiDocument() as { components: { schemas: Record<string, { properties: object }> } })
  .components.schemas;
const CREATE_FIELDS = {
  device: Object.keys(schemas.DeviceInput!.properties),
  monitor: Object.keys(schemas.BlacklistMonitorInput!.properties),
  heartbeat: Object.keys(schemas.HeartbeatInput!.properties),
};
const pick = (record: object, fields: string[]): Record<string, unknown> =>
  Object.fromEntries(
    fields.filter((field) => field in record).map((field) => [field, (record as Record<string, unknown>)[field]]),
  );

/**
 * The keys of a JSON value at every depth, its values left out: an object as its sorted keys, each
 * with the shape of its value; an array as the shapes of its elements, without repeats; anything
 * else as one mark, since the examples' values (ids, times, answers) are their own.
 */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return [...new Set(value.map((element) => JSON.stringify(shape(element))))].sort();
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, shape((value as Record<string, unknown>)[key])]),
    );
  }
  return '·';
}

/** The body of the first delivery of `type` the receiver got, parsed. */
function delivered(receiver: Receiver, type: EventType): unknown {
  const body = receiver.received.map((r) => JSON.parse(r.body) as { type: string }).find((e) => e.type === type);
  assert.ok(body, `the receiver got a ${type}`);
  return body;
}

it('every JSON block of docs/webhooks.md parses, and every event example is of a known type', () => {
  assert.ok(EXAMPLES.length > 0);
  for (const e of EXAMPLES) assert.ok((EVENT_TYPES as readonly string[]).includes(e.type), `unknown type ${e.type}`);
  assert.deepEqual(
    EXAMPLES.map((e) => e.type),
    ['device.down', 'blacklist.listed', 'heartbeat.down'],
    'each example has a test below that makes the same event',
  );
});

/** When a failed location is checked again (the engines' `retryDelayS`). */
const RETRY_DELAY_S = 30;

const sqlite = (await availableStores()).find((factory) => factory.name === 'sqlite')!;

describe('the example payloads are what the engine sends (SQLite)', { concurrency: 1 }, () => {
  let opened: OpenedStore;
  let world: World | undefined;
  before(async () => {
    opened = await sqlite.open();
  });
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });
  after(async () => {
    await opened?.cleanup();
  });

  it('device.down: the example device is what its create answers, with the keys the engine sends', async () => {
    const { data } = example('device.down');
    const w = (world = await openWorld(opened.store, data.created_at as string));
    const fields = pick(data, CREATE_FIELDS.device);
    const created = await w.call<Device>('/devices/create', { method: 'POST', body: fields }, 201);
    assert.deepEqual(pick(created, CREATE_FIELDS.device), fields, 'the example holds the defaults a create gives');
    await w.call(`/devices/delete?id=${created.id}`, { method: 'DELETE' });

    // The same device, at a name the engines resolve to 127.0.0.1 and a port nothing listens on.
    const { receiver } = await w.subscribe(['device.down']);
    const port = await freePort();
    await w.call(
      '/devices/create',
      { method: 'POST', body: { ...fields, target_value: 'shop.probe-fixture.net', port } },
      201,
    );
    const locations = fields.check_locations as string[];
    assert.ok(locations.length >= 2, 'the example is a device checked from several locations');
    const engines = locations.map((location) =>
      w.engine({ location, workerId: `w-${location}`, retryDelayS: RETRY_DELAY_S }),
    );
    // One location alone is fewer than the quorum. Each location's failure counts once its own
    // re-check, a retry delay later, fails too; then the quorum of confirmed failures decides `down`.
    for (let round = 0; round < 3 && receiver.received.length === 0; round++) {
      if (round > 0) w.clock.advance(RETRY_DELAY_S * 1000);
      for (const engine of engines) await engine.runOnce();
    }
    assert.deepEqual(shape(example('device.down')), shape(delivered(receiver, 'device.down')));
  });

  it('blacklist.listed: the example monitor is what its create answers, with the keys the engine sends', async () => {
    const { data } = example('blacklist.listed');
    const w = (world = await openWorld(opened.store, data.created_at as string));
    const fields = pick(data, CREATE_FIELDS.monitor);
    const created = await w.call<BlacklistMonitor>('/blacklist-monitors/create', { method: 'POST', body: fields }, 201);
    assert.deepEqual(pick(created, CREATE_FIELDS.monitor), fields, 'the example holds the defaults a create gives');

    const { receiver } = await w.subscribe(['blacklist.listed']);
    // Each zone of the example lists the target with the example's answer; the PTR is its rdns.
    const listings = data.listings as { zone: string; answer: string }[];
    const resolver: DnsblResolver = {
      resolve4: async (name) => {
        const listing = listings.find((l) => name.endsWith(`.${l.zone}`));
        if (listing === undefined) throw Object.assign(new Error(name), { code: 'ENOTFOUND' });
        return listing.answer.split(',');
      },
      resolvePtr: async () => [data.rdns as string],
    };
    await w.engine({ resolver, dnsblZones: listings.map((l) => l.zone) }).runOnce();
    assert.deepEqual(shape(example('blacklist.listed')), shape(delivered(receiver, 'blacklist.listed')));
  });

  it('heartbeat.down: the example heartbeat is what its create answers, with the keys the engine sends', async () => {
    const { data } = example('heartbeat.down');
    const w = (world = await openWorld(opened.store, data.created_at as string));
    const fields = pick(data, CREATE_FIELDS.heartbeat);
    const created = await w.call<Heartbeat>('/heartbeats/create', { method: 'POST', body: fields }, 201);
    const { ping_url: pingUrl, ...shown } = created;
    assert.deepEqual(pick(shown, CREATE_FIELDS.heartbeat), fields, 'the example holds the defaults a create gives');
    const { receiver } = await w.subscribe(['heartbeat.down']);
    await w.t.ping(pingUrl!, { body: data.last_ping_body as string });
    w.clock.advance(2 * 86_400_000);
    await w.engine().runOnce();
    assert.deepEqual(shape(example('heartbeat.down')), shape(delivered(receiver, 'heartbeat.down')));
  });
});
