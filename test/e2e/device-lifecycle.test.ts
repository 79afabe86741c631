/**
 * docs/engine.md §3, §5 and §6 together: a device created through the API, checked by the engine's
 * real probes against a loopback HTTP server, goes pending → up → validating → down → up as the
 * server fails and recovers; `device.down` and `device.up` reach a webhook created through the API,
 * signed as standardwebhooks verifies; the API shows the statuses and pages the results.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { CheckResult } from '../../core/index.ts';
import { DEVICE_FIELDS } from '../support/record-fields.ts';
import { closedAfterEach, createWebDevice, eachStore, verifyNow } from './harness.ts';

const INTERVAL_S = 30;
/** The engine's jitter is pinned to none (harness.ts): a next check is due exactly this later. */
const INTERVAL_MS = INTERVAL_S * 1000;
const RETRY_DELAY_S = 30;

eachStore('a device through the API, the engine and a webhook', (opened) => {
  const open = closedAfterEach();

  it('pending → up → validating → down (device.down delivered) → up (device.up delivered)', async () => {
    // The real time, rounded to a second: standardwebhooks' 5-minute replay window then accepts
    // every attempt, as the whole story spans about two minutes of the manual clock.
    const w = await open.world(opened().store, Math.floor(Date.now() / 1000) * 1000);
    const target = await open.target();
    const { receiver, webhook } = await w.subscribe();
    const engine = w.engine({ retryDelayS: RETRY_DELAY_S, failuresBeforeDown: 2 });
    const created = await createWebDevice(w, 'web.probe-fixture.net', target.port, INTERVAL_S);
    assert.deepEqual(
      [created.status, created.status_since, created.last_checked_at, created.last_results],
      ['pending', null, null, {}],
    );
    const iso = () => new Date(w.clock.now()).toISOString();

    // A new device is due at once.
    let summary = await engine.runOnce();
    assert.equal(summary.written, 1);
    const up = await w.device(created.id);
    assert.deepEqual([up.status, up.status_since, up.last_checked_at], ['up', iso(), iso()]);
    assert.deepEqual(Object.keys(up.last_results), ['public_http']);
    assert.equal(up.last_results.public_http?.ok, true);
    assert.equal(up.last_results.public_http?.http_status, 200);
    const upSince = up.status_since;

    // Not due before its interval.
    w.clock.advance(INTERVAL_MS - 1);
    assert.equal((await engine.runOnce()).claimed, 0);

    // One failed check: validating, nothing announced, re-checked after the retry delay.
    target.health = 'error';
    w.clock.advance(1);
    await engine.runOnce();
    const validating = await w.device(created.id);
    assert.deepEqual([validating.status, validating.status_since], ['validating', iso()]);
    assert.equal(validating.last_results.public_http?.http_status, 500);
    assert.equal(validating.last_results.public_http?.error, 'unexpected_status');
    assert.equal(receiver.received.length, 0, 'one failure is never announced');

    w.clock.advance(RETRY_DELAY_S * 1000 - 1);
    summary = await engine.runOnce();
    assert.equal(summary.claimed, 0, 'the re-check is not due before the retry delay');

    // The second failure in a row (the server now drops connections): down, and announced.
    target.health = 'closed';
    w.clock.advance(1);
    const requestsBefore = target.requests;
    await engine.runOnce();
    assert.equal(target.requests, requestsBefore + 1, 'the re-check reached the server');
    const down = await w.device(created.id);
    assert.deepEqual([down.status, down.status_since, down.last_checked_at], ['down', iso(), iso()]);
    assert.equal(down.last_results.public_http?.ok, false);
    assert.equal(down.last_results.public_http?.http_status, null);
    assert.equal(receiver.received.length, 1);
    const downEvent = verifyNow(webhook.secret, receiver.received[0]!);
    assert.equal(downEvent.type, 'device.down');
    assert.equal(downEvent.timestamp, iso(), 'the event happened at the check');
    // The record's own `status` keeps its place among its fields; `previous_status` is added.
    assert.deepEqual(Object.keys(downEvent.data), [...DEVICE_FIELDS, 'previous_status']);
    const { previous_status: previous, ...record } = downEvent.data;
    assert.deepEqual([previous, record.status], ['validating', 'down']);
    assert.deepEqual(record, down, 'the data is the record as the API shows it after the check');
    const [hook] = await w.webhooks();
    assert.deepEqual([hook?.last_delivery_status, hook?.last_delivery_at], ['delivered', iso()]);

    // Still failing: still down, nothing announced again.
    w.clock.advance(INTERVAL_MS);
    await engine.runOnce();
    assert.equal((await w.device(created.id)).status, 'down');
    assert.equal(receiver.received.length, 1, 'a device that stays down is announced once');

    // Recovery: one passed check makes it up, announced.
    target.health = 'ok';
    w.clock.advance(INTERVAL_MS);
    await engine.runOnce();
    const recovered = await w.device(created.id);
    assert.deepEqual([recovered.status, recovered.status_since], ['up', iso()]);
    assert.notEqual(recovered.status_since, upSince);
    assert.equal(receiver.received.length, 2);
    const upEvent = verifyNow(webhook.secret, receiver.received[1]!);
    assert.equal(upEvent.type, 'device.up');
    assert.deepEqual([upEvent.data.previous_status, upEvent.data.status, upEvent.data.id], ['down', 'up', created.id]);
    assert.notEqual(upEvent.id, downEvent.id, 'each event has its own webhook-id');

    // Five checks, one result each, newest first, paged with a Link to the older ones.
    const first = await w.raw<CheckResult[]>(`/devices/results?id=${created.id}&limit=3`);
    assert.equal(first.status, 200);
    const page1 = first.body.data!;
    assert.deepEqual(
      page1.map((r) => [r.probe, r.ok]),
      [
        ['public_http', true],
        ['public_http', false],
        ['public_http', false],
      ],
    );
    assert.equal(page1[0]!.checked_at, iso());
    assert.ok(page1[0]!.id > page1[1]!.id && page1[1]!.id > page1[2]!.id, 'newest first');
    const link = first.headers.get('link');
    assert.match(link ?? '', /rel="next"/);
    const next = /^<([^>]+)>/.exec(link!)![1]!;
    assert.equal(next, `/v1/devices/results?id=${created.id}&limit=3&before_id=${page1[2]!.id}`);
    const second = await w.t.request<CheckResult[]>(next, { key: w.key });
    assert.deepEqual(
      second.body.data!.map((r) => [r.probe, r.ok]),
      [
        ['public_http', false],
        ['public_http', true],
      ],
    );
    assert.equal(second.headers.get('link'), null, 'the last page has no next');
  });
});
