import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Device, DeviceStatus, NewDeviceProbeResult } from '../../core/records/index.ts';
import { deviceCheckOutcome, type DeviceStatusOptions } from '../../engine/devices/device-status.ts';
import { probeDevice } from '../support/probe-devices.ts';

const OPTIONS: DeviceStatusOptions = { retryDelayS: 30, failuresBeforeDown: 2, tlsWarnDays: 14 };
const AT = Date.parse('2026-06-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const DAY = 86_400_000;

function http(ok: boolean): NewDeviceProbeResult {
  return {
    probe: 'public_http',
    checked_at: iso(AT),
    ok,
    response_ms: 5,
    error: ok ? null : 'timeout',
    http_status: ok ? 200 : null,
    location: null,
  };
}

function tls(validTo: string | null, ok = true, at = AT): NewDeviceProbeResult {
  const days = validTo === null ? null : Math.floor((Date.parse(validTo) - at) / DAY);
  return {
    probe: 'public_tls',
    checked_at: iso(at),
    ok,
    response_ms: 5,
    error: ok ? null : 'CERT_HAS_EXPIRED',
    tls_valid_to: validTo,
    tls_days_left: days,
    tls_error: ok ? null : 'CERT_HAS_EXPIRED',
  };
}

function check(
  status: DeviceStatus,
  failures: number,
  results: NewDeviceProbeResult[],
  options = OPTIONS,
  device: Partial<Device> = {},
) {
  return deviceCheckOutcome(
    {
      device: probeDevice({
        status,
        status_since: status === 'pending' ? null : '2026-05-01T00:00:00.000Z',
        ...device,
      }),
      consecutiveFailures: failures,
      results,
      checkedAt: AT,
    },
    options,
    () => 0.5,
  );
}

describe('device status transitions', () => {
  const table: [DeviceStatus, number, boolean, DeviceStatus, number, string[]][] = [
    ['pending', 0, true, 'up', 0, []],
    ['pending', 0, false, 'validating', 1, []],
    ['pending', 7, false, 'validating', 1, []], // a count from before a pause starts afresh
    ['up', 0, false, 'validating', 1, []],
    ['validating', 1, false, 'down', 2, ['device.down']],
    ['validating', 1, true, 'up', 0, []], // a failure that did not last is no news
    ['down', 2, false, 'down', 3, []],
    ['down', 5, true, 'up', 0, ['device.up']],
    ['up', 0, true, 'up', 0, []],
  ];
  for (const [from, failures, passed, to, count, events] of table) {
    it(`${from} (${failures} failures) + ${passed ? 'pass' : 'fail'} → ${to}${events.length > 0 ? ` with ${events}` : ''}`, () => {
      const outcome = check(from, failures, [http(true), http(passed)]);
      assert.deepEqual([outcome.previous_status, outcome.status, outcome.consecutive_failures], [from, to, count]);
      assert.deepEqual(
        outcome.events.map((e) => e.type),
        events,
      );
      assert.equal(outcome.checked_at, iso(AT));
    });
  }

  it('goes down on the first failure when failuresBeforeDown is 1, and waits for 3 when it is 3', () => {
    assert.equal(check('up', 0, [http(false)], { ...OPTIONS, failuresBeforeDown: 1 }).status, 'down');
    assert.equal(check('pending', 0, [http(false)], { ...OPTIONS, failuresBeforeDown: 1 }).status, 'down');
    assert.equal(check('validating', 1, [http(false)], { ...OPTIONS, failuresBeforeDown: 3 }).status, 'validating');
    assert.equal(check('validating', 2, [http(false)], { ...OPTIONS, failuresBeforeDown: 3 }).status, 'down');
  });

  it('leaves a device with no probe on where it was', () => {
    const outcome = check('pending', 0, []);
    assert.deepEqual([outcome.status, outcome.consecutive_failures, outcome.events], ['pending', 0, []]);
  });

  it('announces with the device as the check leaves it, and the statuses before and after', () => {
    const failed = http(false);
    const [event] = check('validating', 1, [failed]).events;
    assert.ok(event !== undefined);
    assert.equal(event.created_at, iso(AT));
    assert.deepEqual(
      [event.data.previous_status, event.data.status, 'status_since' in event.data && event.data.status_since],
      ['validating', 'down', iso(AT)],
    );
    assert.ok('last_results' in event.data);
    assert.deepEqual([event.data.last_checked_at, event.data.last_results.public_http], [iso(AT), failed]);
  });
});

describe('next check', () => {
  const next = (
    status: DeviceStatus,
    passed: boolean,
    random: number,
    device: Partial<Device> = {},
    options = OPTIONS,
  ) => {
    const outcome = deviceCheckOutcome(
      {
        device: probeDevice({ status, check_interval_s: 100, ...device }),
        consecutiveFailures: status === 'down' ? 2 : 0,
        results: [http(passed)],
        checkedAt: AT,
      },
      options,
      () => random,
    );
    return (Date.parse(outcome.next_check_at) - AT) / 1000;
  };

  it('is the interval moved by up to ±10 % by the random draw', () => {
    assert.equal(next('up', true, 0), 90);
    assert.equal(next('up', true, 0.5), 100);
    assert.equal(next('up', true, 0.99), 109.8);
  });

  it('is retryDelayS, without jitter, while validating; never later than the interval', () => {
    assert.equal(next('up', false, 0), 30);
    assert.equal(next('up', false, 0.9), 30);
    assert.equal(next('up', false, 0.5, { check_interval_s: 20 }), 20);
  });

  it('is the interval for a down device', () => {
    assert.equal(next('down', false, 0.5), 100);
    assert.equal(next('down', false, 0), 90);
  });
});

describe('device.tls_expiring', () => {
  const soon = iso(AT + 10 * DAY);
  const expiring = (results: NewDeviceProbeResult[], previous: NewDeviceProbeResult | null = null) =>
    check('up', 0, results, OPTIONS, {
      last_results: previous === null ? {} : { [previous.probe]: previous },
    }).events.filter((e) => e.type === 'device.tls_expiring');

  it('is raised for a valid certificate ending within tlsWarnDays, the probe staying ok', () => {
    const outcome = check('up', 0, [tls(soon)]);
    assert.deepEqual([outcome.status, outcome.events.map((e) => e.type)], ['up', ['device.tls_expiring']]);
  });

  it('is raised once per certificate: not again for the same end of validity, again for a renewed one', () => {
    const earlier = tls(soon, true, AT - DAY);
    assert.equal(expiring([tls(soon)], earlier).length, 0);
    assert.equal(expiring([tls(iso(AT + 12 * DAY))], earlier).length, 1);
  });

  it('is raised when the previous check of the same certificate was still outside the window', () => {
    const lastMonth = tls(soon, true, AT - 20 * DAY);
    assert.equal(expiring([tls(soon)], lastMonth).length, 1);
  });

  it('is not raised outside the window, for an expired or refused certificate, or without one', () => {
    assert.equal(expiring([tls(iso(AT + 15 * DAY))]).length, 0);
    assert.equal(expiring([tls(iso(AT - DAY), false)]).length, 0);
    assert.equal(expiring([tls(soon, false)]).length, 0);
    assert.equal(expiring([tls(null, false)]).length, 0);
  });

  it('honours tlsWarnDays', () => {
    const outcome = check('up', 0, [tls(soon)], { ...OPTIONS, tlsWarnDays: 7 });
    assert.deepEqual(outcome.events, []);
  });
});
