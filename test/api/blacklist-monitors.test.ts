/**
 * Blacklist monitors (docs/contract.md §6.2; docs/engine.md, "What the API shows"): create, the
 * record, what checks write into it, duplicates, delete and list.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BlacklistCheckOutcome, BlacklistMonitor, Deleted } from '../../core/index.ts';
import { mustRecord, recordBlacklistCheck } from './checks.ts';
import {
  assertError,
  assertSuccess,
  assertValidation,
  eachStore,
  ISO_MS,
  MONITOR_FIELDS,
  START,
  validationOnly,
} from './helpers.ts';
import { defineDeleteTests, defineListTests, MONITORS } from './resource-suites.ts';

function assertMonitorRecord(record: BlacklistMonitor): void {
  assert.deepEqual(
    Object.keys(record).sort(),
    [...MONITOR_FIELDS].sort(),
    `monitor record fields: ${JSON.stringify(record)}`,
  );
  assert.equal(typeof record.is_enabled, 'boolean');
  assert.ok(Array.isArray(record.listed_on));
  assert.ok(Array.isArray(record.failed_zones));
  assert.ok(Number.isInteger(record.check_interval_s));
  assert.ok(record.last_status === null || ['clean', 'listed', 'error'].includes(record.last_status as string));
  assert.ok(record.last_checked_at === null || ISO_MS.test(record.last_checked_at as string));
}

eachStore('blacklist monitors', (env) => {
  test('only target_type and target_value are required; is_enabled defaults to true; never checked yet', async () => {
    const { t, key } = await env.setup();
    const record = assertSuccess(
      await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
        method: 'POST',
        key,
        body: { target_type: 'domain', target_value: 'Example.COM.' },
      }),
      201,
    );
    assertMonitorRecord(record);
    assert.deepEqual(record, {
      id: record.id,
      target_type: 'domain',
      target_value: 'example.com',
      is_enabled: true,
      last_status: null,
      last_checked_at: null,
      listed_on: [],
      created_at: START,
      check_interval_s: 3600,
      failed_zones: [],
      zones: null,
      count_policy_listings: false,
      listings: [],
      rdns: null,
      name: null,
      channel_ids: null,
    });
    assert.deepEqual(assertSuccess(await t.request('/v1/blacklist-monitors', { key }), 200), [record]);
  });

  test('is_enabled as given', async () => {
    const { t, key } = await env.setup();
    for (const [i, [given, stored]] of (
      [
        [false, false],
        [0, false],
        [true, true],
        [1, true],
      ] as const
    ).entries()) {
      const record = assertSuccess(
        await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
          method: 'POST',
          key,
          body: { target_type: 'ip', target_value: `8.8.8.${i + 1}`, is_enabled: given },
        }),
        201,
      );
      assertMonitorRecord(record);
      assert.equal(record.is_enabled, stored, `is_enabled ${String(given)}`);
    }
  });

  validationOnly(env, () => {
    test('device fields and read-only record fields are unknown_field', async () => {
      const { t, key } = await env.setup();
      for (const field of [
        'service_type',
        'port',
        'scheme',
        'location',
        'last_status',
        'last_checked_at',
        'listed_on',
        'id',
        'created_at',
        'enabled',
        'failed_zones',
        'status',
        'last_results',
        'listings',
        'rdns',
      ]) {
        const list = field === 'listed_on' || field === 'failed_zones' || field === 'listings';
        const res = await t.request('/v1/blacklist-monitors/create', {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: 'example.com', [field]: list ? [] : 'clean' },
        });
        assertValidation(res, [[field, 'unknown_field']]);
      }
      assert.deepEqual(assertSuccess(await t.request('/v1/blacklist-monitors', { key }), 200), []);
    });
  });

  test('a check shows in the list: last_status, last_checked_at, listed_on, failed_zones', async () => {
    const { t, key } = await env.setup();
    const a = assertSuccess(
      await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
        method: 'POST',
        key,
        body: { target_type: 'ip', target_value: '8.8.8.8' },
      }),
      201,
    );
    const b = assertSuccess(
      await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
        method: 'POST',
        key,
        body: { target_type: 'domain', target_value: 'example.org' },
      }),
      201,
    );
    await mustRecord(
      recordBlacklistCheck(env.store, a.id, {
        checked_at: '2026-02-03T04:05:06.789Z',
        last_status: 'listed',
        listed_on: ['bl.spamcop.net', 'zen.spamhaus.org'],
        failed_zones: ['psbl.surriel.com'],
      }),
    );
    await mustRecord(
      recordBlacklistCheck(env.store, b.id, {
        checked_at: '2026-02-03T04:05:07.000Z',
        last_status: 'error',
        failed_zones: ['dbl.spamhaus.org', 'multi.uribl.com'],
      }),
    );
    let list = assertSuccess(await t.request<BlacklistMonitor[]>('/v1/blacklist-monitors', { key }), 200);
    for (const record of list) assertMonitorRecord(record);
    assert.deepEqual(list, [
      {
        ...a,
        last_status: 'listed',
        last_checked_at: '2026-02-03T04:05:06.789Z',
        listed_on: ['bl.spamcop.net', 'zen.spamhaus.org'],
        failed_zones: ['psbl.surriel.com'],
      },
      {
        ...b,
        last_status: 'error',
        last_checked_at: '2026-02-03T04:05:07.000Z',
        listed_on: [],
        failed_zones: ['dbl.spamhaus.org', 'multi.uribl.com'],
      },
    ]);
    // A later clean check clears listed_on and failed_zones; the page shows it as the whole list does.
    await mustRecord(
      recordBlacklistCheck(env.store, a.id, { checked_at: '2026-02-04T00:00:00.001Z', last_status: 'clean' }),
    );
    list = assertSuccess(await t.request<BlacklistMonitor[]>('/v1/blacklist-monitors?limit=1', { key }), 200);
    assert.deepEqual(list, [
      { ...a, last_status: 'clean', last_checked_at: '2026-02-04T00:00:00.001Z', listed_on: [], failed_zones: [] },
    ]);
    // A check in flight when the monitor is deleted is not written: the delete does not come undone.
    const [claimed] = (
      await env.store.claimDueBlacklistMonitors({
        owner: 'w',
        now: '2026-02-05T00:00:00.000Z',
        limit: 100_000,
        leaseUntil: '2026-02-05T00:00:00.000Z',
      })
    ).filter((c) => c.record.id === a.id);
    assert.ok(claimed !== undefined, 'the monitor was due');
    assertSuccess(await t.request(`/v1/blacklist-monitors/delete?id=${a.id}`, { method: 'DELETE', key }), 200);
    const outcome: BlacklistCheckOutcome = {
      checked_at: '2026-02-05T00:00:00.000Z',
      last_status: 'clean',
      listed_on: [],
      failed_zones: [],
      results: [],
      next_check_at: '2026-02-05T01:00:00.000Z',
      events: [],
      listings: [],
      rdns: null,
    };
    assert.deepEqual(await env.store.recordBlacklistChecks([{ lease: claimed.lease, outcome }]), [false]);
    assert.deepEqual(
      (assertSuccess(await t.request('/v1/blacklist-monitors', { key }), 200) as { id: number }[]).map((m) => m.id),
      [b.id],
    );
  });

  test('last_checked_at is answered as ISO 8601 UTC with milliseconds whatever ISO form the checker reported', async () => {
    const { t, key } = await env.setup();
    const m = assertSuccess(
      await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
        method: 'POST',
        key,
        body: { target_type: 'ip', target_value: '8.8.8.8' },
      }),
      201,
    );
    for (const [reported, answered] of [
      ['2026-02-03T04:05:06Z', '2026-02-03T04:05:06.000Z'],
      ['2026-02-03T04:05:06.123456Z', '2026-02-03T04:05:06.123Z'],
      ['2026-02-03T05:05:06.5+01:00', '2026-02-03T04:05:06.500Z'],
    ] as const) {
      await mustRecord(recordBlacklistCheck(env.store, m.id, { checked_at: reported, last_status: 'clean' }));
      const [listed] = assertSuccess(await t.request('/v1/blacklist-monitors', { key }), 200) as {
        last_checked_at: string;
      }[];
      assert.equal(listed?.last_checked_at, answered, `reported ${reported}`);
    }
  });

  test("zones: some of the installation's zones for the target's type, stored sorted; an unknown zone is 400 naming it", async () => {
    const { t, key } = await env.setup();
    const post = (body: Record<string, unknown>) =>
      t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', { method: 'POST', key, body });
    const ip = assertSuccess(
      await post({
        target_type: 'ip',
        target_value: '8.8.4.4',
        zones: ['ZEN.spamhaus.org.', 'bl.spamcop.net', 'zen.spamhaus.org'],
      }),
      201,
    );
    assert.deepEqual(ip.zones, ['bl.spamcop.net', 'zen.spamhaus.org'], 'lower-cased, repeats dropped, sorted');
    const domain = assertSuccess(
      await post({ target_type: 'domain', target_value: 'zones.example.com', zones: ['multi.surbl.org'] }),
      201,
    );
    assert.deepEqual(domain.zones, ['multi.surbl.org']);
    assert.equal(
      assertSuccess(await post({ target_type: 'domain', target_value: 'all.example.com', zones: null }), 201).zones,
      null,
      'null: every zone',
    );
    // A domain zone for an IP target, a zone nobody configured: refused, naming it, nothing created.
    for (const [body, named] of [
      [
        { target_type: 'ip', target_value: '8.8.8.9', zones: ['zen.spamhaus.org', 'dbl.spamhaus.org'] },
        'dbl.spamhaus.org',
      ],
      [{ target_type: 'domain', target_value: 'x.example.com', zones: ['bl.example.net'] }, 'bl.example.net'],
    ] as const) {
      const error = assertError(await post(body), 400, 'validation_failed');
      assert.deepEqual(
        error.details?.map((d) => [d.field, d.code]),
        [['zones', 'invalid_value']],
      );
      assert.match(
        error.details![0]!.message,
        new RegExp(`"${named.replaceAll('.', '\\.')}"`),
        'the message names the zone',
      );
    }
    for (const zones of [[], 'zen.spamhaus.org', [1], {}]) {
      assertValidation(await post({ target_type: 'ip', target_value: '8.8.8.9', zones }), [
        ['zones', Array.isArray(zones) && zones.length === 0 ? 'invalid_value' : 'invalid_type'],
      ]);
    }
    assert.equal(assertSuccess(await t.request<BlacklistMonitor[]>('/v1/blacklist-monitors', { key }), 200).length, 3);
  });

  test('count_policy_listings: a flag, default false', async () => {
    const { t, key } = await env.setup();
    const post = (body: Record<string, unknown>) =>
      t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
        method: 'POST',
        key,
        body: { target_type: 'ip', ...body },
      });
    for (const [i, [given, stored]] of (
      [
        [true, true],
        [1, true],
        [false, false],
        [0, false],
        [null, false],
        [undefined, false],
      ] as const
    ).entries()) {
      assert.equal(
        assertSuccess(await post({ target_value: `9.9.9.${i + 1}`, count_policy_listings: given }), 201)
          .count_policy_listings,
        stored,
        String(given),
      );
    }
    assertValidation(await post({ target_value: '9.9.9.20', count_policy_listings: 'yes' }), [
      ['count_policy_listings', 'invalid_type'],
    ]);
    assertValidation(await post({ target_value: '9.9.9.20', count_policy_listings: 2 }), [
      ['count_policy_listings', 'invalid_value'],
    ]);
  });

  test('check_interval_s: 300 to 86400 seconds, default 3600; else out_of_range or invalid_type', async () => {
    const { t, key } = await env.setup();
    const post = (body: Record<string, unknown>) =>
      t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
        method: 'POST',
        key,
        body: { target_type: 'domain', ...body },
      });
    for (const [i, [given, stored]] of (
      [
        [300, 300],
        [86400, 86400],
        [900, 900],
        [null, 3600],
        [undefined, 3600],
      ] as const
    ).entries()) {
      const record = assertSuccess(await post({ target_value: `i${i}.example.com`, check_interval_s: given }), 201);
      assertMonitorRecord(record);
      assert.equal(record.check_interval_s, stored, String(given));
    }
    // 60 is a valid device interval but too short for a blacklist monitor (the lists limit queries).
    for (const value of [299, 60, 30, 0, -300, 86401]) {
      assertValidation(await post({ target_value: 'x.example.com', check_interval_s: value }), [
        ['check_interval_s', 'out_of_range'],
      ]);
    }
    for (const value of ['3600', 3600.5, true, [3600], { s: 3600 }]) {
      assertValidation(await post({ target_value: 'x.example.com', check_interval_s: value }), [
        ['check_interval_s', 'invalid_type'],
      ]);
    }
    const error = assertError(
      await post({ target_value: 'x.example.com', check_interval_s: 1 }),
      400,
      'validation_failed',
    );
    assert.equal(error.details?.[0]?.message, 'check_interval_s must be an integer from 300 to 86400 (seconds).');
    assert.deepEqual(
      assertSuccess(await t.request<BlacklistMonitor[]>('/v1/blacklist-monitors', { key }), 200).map(
        (m) => m.check_interval_s,
      ),
      [300, 86400, 900, 3600, 3600],
    );
  });

  test('a duplicate is 409 duplicate_blacklist_monitor with existing_id, also after normalisation', async () => {
    const { t, key } = await env.setup();
    const post = (body: Record<string, unknown>) =>
      t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', { method: 'POST', key, body });
    const domain = assertSuccess(await post({ target_type: 'domain', target_value: 'example.com' }), 201);
    const ip = assertSuccess(await post({ target_type: 'ip', target_value: '2606:4700:4700::1111' }), 201);
    const v4 = assertSuccess(await post({ target_type: 'ip', target_value: '1.1.1.1' }), 201);
    const idn = assertSuccess(await post({ target_type: 'domain', target_value: 'münchen.de' }), 201);
    const cases: [Record<string, unknown>, number][] = [
      [{ target_type: 'domain', target_value: 'example.com' }, domain.id],
      [{ target_type: 'domain', target_value: 'EXAMPLE.com.' }, domain.id],
      [{ target_type: 'domain', target_value: 'example.com', is_enabled: false }, domain.id],
      [{ target_type: 'ip', target_value: '2606:4700:4700:0:0:0:0:1111' }, ip.id],
      [{ target_type: 'ip', target_value: '2606:4700:4700:0000::1111'.toUpperCase() }, ip.id],
      [{ target_type: 'ip', target_value: '::ffff:1.1.1.1' }, v4.id],
      [{ target_type: 'domain', target_value: 'xn--mnchen-3ya.de' }, idn.id],
      [{ target_type: 'domain', target_value: 'MÜNCHEN.DE.' }, idn.id],
    ];
    for (const [body, existing] of cases) {
      const error = assertError(await post(body), 409, 'duplicate_blacklist_monitor');
      assert.equal(error.existing_id, existing, JSON.stringify(body));
    }
    // Other user, other target: not duplicates.
    const other = await t.createKey();
    assertSuccess(
      await t.request('/v1/blacklist-monitors/create', {
        method: 'POST',
        key: other,
        body: { target_type: 'domain', target_value: 'example.com' },
      }),
      201,
    );
    assertSuccess(await post({ target_type: 'domain', target_value: 'www.example.com' }), 201);
    // A device of the same target is a different resource.
    assertSuccess(
      await t.request('/v1/devices/create', {
        method: 'POST',
        key,
        body: { target_type: 'domain', target_value: 'example.com' },
      }),
      201,
    );
  });

  test('a deleted monitor may be created again, with a new id', async () => {
    const { t, key } = await env.setup();
    const post = () =>
      t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
        method: 'POST',
        key,
        body: { target_type: 'domain', target_value: 'example.com' },
      });
    const first = assertSuccess(await post(), 201);
    assertSuccess(await t.request(`/v1/blacklist-monitors/delete?id=${first.id}`, { method: 'DELETE', key }), 200);
    const again = assertSuccess(await post(), 201);
    assert.ok(again.id > first.id);
    assert.equal(assertError(await post(), 409, 'duplicate_blacklist_monitor').existing_id, again.id);
  });

  test('concurrent identical creates give exactly one 201, the rest 409 naming it', async () => {
    const { t, key } = await env.setup();
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
          method: 'POST',
          key,
          body: { target_type: 'domain', target_value: 'race.example.com' },
        }),
      ),
    );
    const created = answers.filter((a) => a.status === 201);
    assert.equal(created.length, 1, `statuses ${answers.map((a) => a.status).join(',')}`);
    for (const a of answers) {
      if (a.status !== 201)
        assert.equal(assertError(a, 409, 'duplicate_blacklist_monitor').existing_id, created[0]!.body.data!.id);
    }
  });

  test('the delete answer and the 404 code', async () => {
    const { t, key } = await env.setup();
    const record = assertSuccess(
      await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
        method: 'POST',
        key,
        body: { target_type: 'domain', target_value: 'example.com' },
      }),
      201,
    );
    const data = assertSuccess(
      await t.request<Deleted>(`/v1/blacklist-monitors/delete?id=${record.id}`, { method: 'DELETE', key }),
      200,
    );
    assert.equal(data.id, record.id);
    assert.equal(data.deleted, true);
    assertError(
      await t.request(`/v1/blacklist-monitors/delete?id=${record.id}`, { method: 'DELETE', key }),
      404,
      'blacklist_monitor_not_found',
    );
  });

  defineDeleteTests(env, MONITORS);
  defineListTests(env, MONITORS);
});
