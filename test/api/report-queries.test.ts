/**
 * docs/contract.md §6.12, the report routes' input: every bad range, bucket, time zone, id and
 * paging parameter is a clear 400 before any record is read, and a key without `read` is 403.
 * What the routes answer for good input, and the 404s of ids that are not the user's, are in
 * reports.test.ts, on every store.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { TestApi } from '../../core/testing/index.ts';
import { assertError, assertValidation, createTestApi, type Expected } from './helpers.ts';

const NOW = '2026-06-15T12:00:00.000Z';
const apis: TestApi[] = [];
after(async () => {
  for (const t of apis) await t.close();
});

async function setup() {
  const t = createTestApi({ start: NOW, rateLimit: { limit: 100_000, windowSeconds: 60 } });
  apis.push(t);
  return { t, key: await t.createKey() };
}

/** Each route with the parameters that name its record, so the other parameters are what is judged. */
const ROUTES = [
  ['/v1/devices/availability', 'id=1&'],
  ['/v1/devices/response-times', 'id=1&'],
  ['/v1/incidents', ''],
  ['/v1/blacklist-monitors/listings', 'id=1&'],
] as const;

const enc = encodeURIComponent;

/** Ranges every route refuses, and the details it gives. */
const BAD_RANGES: [string, string, Expected[]][] = [
  ['reversed', `from=${enc('2026-06-10T00:00:00Z')}&to=${enc('2026-06-01T00:00:00Z')}`, [['from', 'out_of_range']]],
  [
    'empty (from = to)',
    `from=${enc('2026-06-10T00:00:00Z')}&to=${enc('2026-06-10T00:00:00Z')}`,
    [['from', 'out_of_range']],
  ],
  [
    'the same instant written with two offsets',
    `from=${enc('2026-06-10T02:00:00+02:00')}&to=${enc('2026-06-10T00:00:00Z')}`,
    [['from', 'out_of_range']],
  ],
  ['400 days and a millisecond', `from=${enc('2025-05-11T11:59:59.999Z')}&to=${enc(NOW)}`, [['from', 'out_of_range']]],
  ['a from in the future and no to', `from=${enc('2026-06-15T12:00:30Z')}`, [['from', 'out_of_range']]],
  ['a to over a minute ahead', `to=${enc('2026-06-15T12:01:00.001Z')}`, [['to', 'out_of_range']]],
  [
    'a to a year ahead',
    `from=${enc('2026-06-01T00:00:00Z')}&to=${enc('2027-06-01T00:00:00Z')}`,
    [['to', 'out_of_range']],
  ],
  ['a date without a time', `from=2026-06-01`, [['from', 'invalid_value']]],
  ['a time without an offset', `from=${enc('2026-06-01T00:00:00')}`, [['from', 'invalid_value']]],
  ['30 February', `from=${enc('2026-02-30T00:00:00Z')}`, [['from', 'invalid_value']]],
  ['29 February of a common year', `from=${enc('2026-02-29T00:00:00Z')}`, [['from', 'invalid_value']]],
  ['24:00', `to=${enc('2026-06-01T24:00:00Z')}`, [['to', 'invalid_value']]],
  ['a leap second', `to=${enc('2026-06-01T23:59:60Z')}`, [['to', 'invalid_value']]],
  ['an offset of 24 hours', `from=${enc('2026-06-01T00:00:00+24:00')}`, [['from', 'invalid_value']]],
  ['a Unix time', 'from=1780000000', [['from', 'invalid_value']]],
  ['a word', 'to=yesterday', [['to', 'invalid_value']]],
  ['an empty value', 'from=', [['from', 'invalid_value']]],
  ['a space instead of T', `from=${enc('2026-06-01 00:00:00Z')}`, [['from', 'invalid_value']]],
  [
    'from given twice',
    `from=${enc('2026-06-01T00:00:00Z')}&from=${enc('2026-06-02T00:00:00Z')}`,
    [['from', 'invalid_value']],
  ],
  [
    'both ends malformed',
    'from=x&to=y',
    [
      ['from', 'invalid_value'],
      ['to', 'invalid_value'],
    ],
  ],
  ['an unknown parameter', 'since=2026-06-01', [['since', 'unknown_field']]],
];

describe('report routes: bad input is a clear 400', { concurrency: 1 }, () => {
  for (const [path, id] of ROUTES) {
    test(`${path}: every bad range, each with its detail`, async () => {
      const { t, key } = await setup();
      for (const [what, query, expected] of BAD_RANGES) {
        const res = await t.request(`${path}?${id}${query}`, { key });
        assert.equal(res.status, 400, `${what}: ${res.text}`);
        assertValidation(res, expected);
      }
    });

    if (id !== '')
      test(`${path}: a missing, repeated or malformed id is invalid_id, judged before anything else`, async () => {
        const { t, key } = await setup();
        for (const query of ['', 'from=x', 'id=0', 'id=-1', 'id=1.5', 'id=abc', 'id=1&id=2', 'id=99999999999999999999'])
          assertError(await t.request(`${path}?${query}`, { key }), 400, 'invalid_id');
      });

    test(`${path}: a key without read is 403, and no key 401`, async () => {
      const { t } = await setup();
      const writer = await t.createKey({ scopes: ['write'] });
      assertError(await t.request(`${path}?${id}`, { key: writer }), 403, 'insufficient_scope');
      assertError(await t.request(`${path}?${id}`), 401, 'missing_api_key');
      assertError(await t.request(`${path}?${id}`, { method: 'POST', key: writer }), 405, 'method_not_allowed');
    });
  }

  test('/v1/devices/response-times: bucket and time_zone', async () => {
    const { t, key } = await setup();
    const cases: [string, Expected[]][] = [
      ['bucket=week', [['bucket', 'invalid_value']]],
      ['bucket=HOUR', [['bucket', 'invalid_value']]],
      ['bucket=', [['bucket', 'invalid_value']]],
      ['bucket=hour&bucket=day', [['bucket', 'invalid_value']]],
      ['time_zone=Mars%2FOlympus_Mons', [['time_zone', 'invalid_value']]],
      ['time_zone=', [['time_zone', 'invalid_value']]],
      ['time_zone=Europe%2FBerlin&bucket=hour', [['time_zone', 'not_applicable']]],
      [
        `bucket=minute&time_zone=Nowhere&from=${enc('2026-06-10T00:00:00Z')}&to=${enc('2026-06-01T00:00:00Z')}`,
        [
          ['from', 'out_of_range'],
          ['bucket', 'invalid_value'],
          ['time_zone', 'invalid_value'],
        ],
      ],
    ];
    for (const [query, expected] of cases) {
      const res = await t.request(`/v1/devices/response-times?id=1&${query}`, { key });
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assertValidation(res, expected);
    }
  });

  test('/v1/devices/availability and /v1/blacklist-monitors/listings take no bucket or paging', async () => {
    const { t, key } = await setup();
    for (const path of ['/v1/devices/availability', '/v1/blacklist-monitors/listings']) {
      assertValidation(await t.request(`${path}?id=1&bucket=day`, { key }), [['bucket', 'unknown_field']]);
      assertValidation(await t.request(`${path}?id=1&limit=10`, { key }), [['limit', 'unknown_field']]);
    }
  });

  test('/v1/incidents: device_id, limit and before_id', async () => {
    const { t, key } = await setup();
    const cases: [string, Expected[]][] = [
      ['device_id=abc', [['device_id', 'invalid_type']]],
      ['device_id=0', [['device_id', 'out_of_range']]],
      ['device_id=1&device_id=2', [['device_id', 'invalid_value']]],
      ['limit=0', [['limit', 'out_of_range']]],
      ['limit=1001', [['limit', 'out_of_range']]],
      ['limit=ten', [['limit', 'invalid_type']]],
      ['before_id=0', [['before_id', 'out_of_range']]],
      ['id=1', [['id', 'unknown_field']]],
      [
        'device_id=-3&limit=0&to=soon',
        [
          ['device_id', 'out_of_range'],
          ['limit', 'out_of_range'],
          ['to', 'invalid_value'],
        ],
      ],
    ];
    for (const [query, expected] of cases) {
      const res = await t.request(`/v1/incidents?${query}`, { key });
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assertValidation(res, expected);
    }
  });

  test('an unknown path under /incidents is 404 unknown_incidents_route', async () => {
    const { t, key } = await setup();
    assertError(await t.request('/v1/incidents/list', { key }), 404, 'unknown_incidents_route');
    assertError(await t.request('/v1/devices/uptime?id=1', { key }), 404, 'unknown_devices_route');
  });
});
