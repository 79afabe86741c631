/**
 * The quorum decision of a device checked from several locations, as a table: each row is a
 * device's state, one location's result, and what must follow (engine/devices/location-quorum.ts).
 * The re-check rule and failing episodes have their table in quorum-rules.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideQuorum } from '../../engine/devices/location-quorum.ts';
import { at, decideRows, device, ours, result, S, SETTINGS, T, type Row } from './quorum-table.ts';

const ROWS: Row[] = [
  {
    name: 'in a maintenance window, a quorum failing: the status stays maintenance, nothing announced',
    device: device('maintenance', [at('a', 'fail', { ago: 2, failingFor: 300 }), at('b', 'fail', { failingFor: 300 })]),
    result: result('b', false),
    expect: { status: 'maintenance', event: null, locationFailing: [], quorumState: 'met' },
  },
  {
    name: 'up, one of three fails: validating, the others asked at once, nothing announced',
    device: device('up', [at('a', 'up'), at('b', 'up'), at('c', 'up')]),
    result: result('a', false),
    expect: { status: 'validating', event: null, secondOpinion: true, quorumState: 'met', upSinceMs: T - 600 * S },
  },
  {
    name: '1 of 3 failing, the others pass after it: back to up, silently',
    device: device('validating', [at('a', 'fail', { ago: 2 }), at('b', 'up', { ago: 1 }), at('c', 'up', { ago: 40 })], {
      validatingSinceMs: T - 2 * S,
      upSinceMs: T - 3600 * S,
    }),
    result: result('c', true),
    expect: { status: 'up', event: null, locationFailing: [], secondOpinion: false, upSinceMs: T - 3600 * S },
  },
  {
    name: '1 of 3 failing, not every location answered yet: still validating',
    device: device(
      'validating',
      [at('a', 'fail', { ago: 2 }), at('b', 'up', { ago: 40 }), at('c', 'up', { ago: 40 })],
      {
        validatingSinceMs: T - 2 * S,
      },
    ),
    result: result('b', true),
    expect: { status: 'validating', event: null },
  },
  {
    name: '1 live location of 3 (quorum 2): the status holds, insufficient, even when it fails',
    device: device('up', [at('a', 'up'), at('b', 'up', { live: false }), at('c', 'up', { live: false })]),
    result: result('a', false),
    expect: {
      status: 'up',
      quorumState: 'insufficient',
      event: null,
      secondOpinion: false,
      verdicts: { a: 'failing', b: 'stale', c: 'stale' },
    },
  },
  {
    name: 'down with one live location of 3: stays down, insufficient, no device.up from one vantage point',
    device: device('down', [at('a', 'fail'), at('b', 'fail', { live: false }), at('c', 'fail', { live: false })]),
    result: result('a', true),
    expect: { status: 'down', quorumState: 'insufficient', event: null },
  },
  {
    name: 'a result older than two intervals does not count: stale',
    device: device(
      'validating',
      [at('a', 'fail', { ago: 2 }), at('b', 'fail', { ago: 121 }), at('c', 'up', { ago: 1 })],
      {
        validatingSinceMs: T - 2 * S,
      },
    ),
    result: result('c', true),
    expect: { status: 'up', verdicts: { a: 'failing', b: 'stale', c: 'up' } },
  },
  {
    name: 'recovery: down, a second location passes (2 of 3): up, announced',
    device: device('down', [at('a', 'up'), at('b', 'fail'), at('c', 'fail')]),
    result: result('b', true),
    expect: { status: 'up', event: 'device.up', verdicts: { a: 'up', b: 'up', c: 'failing' } },
  },
  {
    name: 'down, one location of 3 passes: stays down',
    device: device('down', [at('a', 'fail'), at('b', 'fail'), at('c', 'fail')]),
    result: result('a', true),
    expect: { status: 'down', event: null },
  },
  {
    name: 'quorum 1 of 1 (the single-location rule): a failure validates, one a retry delay later is down',
    device: device('validating', [at('a', 'fail', { ago: 30 })], { quorum: 1, validatingSinceMs: T - 30 * S }),
    result: result('a', false),
    expect: { status: 'down', event: 'device.down' },
  },
  {
    name: 'our failure while up: the location keeps its last result, nothing moves, nothing is asked',
    device: device('up', [at('a', 'up'), at('b', 'up'), at('c', 'up')]),
    result: ours('a'),
    expect: {
      status: 'up',
      event: null,
      secondOpinion: false,
      locationFailing: [],
      quorumState: 'met',
      verdicts: { a: 'up', b: 'up', c: 'up' },
    },
  },
  {
    name: 'our failure while validating: not counted toward the quorum, no down',
    device: device('validating', [at('a', 'fail', { ago: 2 }), at('b', 'up', { ago: 1 }), at('c', 'up', { ago: 40 })], {
      validatingSinceMs: T - 2 * S,
    }),
    result: ours('c'),
    expect: { status: 'validating', event: null, verdicts: { a: 'failing', b: 'up', c: 'up' } },
  },
  {
    name: 'our failure where a failing target would be down: the status holds',
    device: device(
      'validating',
      [
        at('a', 'fail', { ago: 2, failingFor: 32, failures: 2 }),
        at('b', 'fail', { ago: 30 }),
        at('c', 'up', { ago: 40 }),
      ],
      {
        validatingSinceMs: T - 32 * S,
      },
    ),
    result: ours('b'),
    expect: {
      status: 'validating',
      event: null,
      quorumState: 'met',
      verdicts: { a: 'failing', b: 'failing', c: 'up' },
    },
  },
  {
    name: 'our failure while down: the location counts with its last real result, which holds the status',
    device: device('down', [at('a', 'fail'), at('b', 'fail', { live: false }), at('c', 'fail')]),
    result: ours('c'),
    expect: {
      status: 'down',
      event: null,
      quorumState: 'met',
      verdicts: { a: 'failing', b: 'stale', c: 'failing' },
    },
  },
  {
    name: 'our failure of a location never heard: unknown, and too few heard for the quorum',
    device: device('pending', [at('a', 'up'), at('b', 'none'), at('c', 'none')]),
    result: ours('b'),
    expect: {
      status: 'pending',
      event: null,
      quorumState: 'insufficient',
      verdicts: { a: 'up', b: 'unknown', c: 'unknown' },
    },
  },
  {
    name: 'our failure while up with a location failing a whole interval: nothing announced at this write',
    device: device('up', [
      at('a', 'fail', { ago: 0, failingFor: 60, failures: 2 }),
      at('b', 'up'),
      at('c', 'up', { ago: 30 }),
    ]),
    result: ours('b'),
    expect: { status: 'up', locationFailing: [], event: null },
  },
  {
    name: 'in maintenance, a location fails: no failing episode begins, nothing announced',
    device: device('maintenance', [at('a', 'up'), at('b', 'up'), at('c', 'up')]),
    result: result('a', false),
    expect: {
      status: 'maintenance',
      event: null,
      locationFailing: [],
      secondOpinion: false,
      verdicts: { a: 'failing', b: 'up', c: 'up' },
    },
  },
  {
    name: 'pending, first location passes: up',
    device: device('pending', [at('a', 'none'), at('b', 'up'), at('c', 'none')]),
    result: result('a', true),
    expect: { status: 'up', event: null, verdicts: { a: 'up', b: 'up', c: 'unknown' }, upSinceMs: T },
  },
];

describe('the quorum decision, table-driven', () => {
  decideRows(ROWS);

  it('a late result from a fenced worker (another lease) changes nothing', () => {
    const d = device('validating', [at('a', 'fail'), at('b', 'fail'), at('c', 'up')], {
      validatingSinceMs: T - 10 * S,
    });
    assert.equal(decideQuorum(d, result('c', false, 'an-old-lease'), SETTINGS), null);
    assert.equal(decideQuorum(d, result('elsewhere', false), SETTINGS), null, 'not one of its locations');
  });

  it("our failure keeps the location's last result and its episode, and frees its lease", () => {
    const d = device('up', [
      at('a', 'fail', { ago: 30, failingFor: 90, announced: true }),
      at('b', 'up'),
      at('c', 'up'),
    ]);
    const decided = decideQuorum(d, ours('a'), SETTINGS)!;
    const a = decided.locations.find((l) => l.name === 'a')!;
    assert.deepEqual(a, { ...d.locations[0]!, leaseToken: null });
  });

  it('a maintenance window ends a failing episode: it starts afresh after the window', () => {
    const d = device('maintenance', [
      at('a', 'fail', { failingFor: 600, announced: true }),
      at('b', 'up'),
      at('c', 'up'),
    ]);
    const a = decideQuorum(d, result('a', false), SETTINGS)!.locations.find((l) => l.name === 'a')!;
    assert.deepEqual([a.last?.ok, a.failingSinceMs, a.announced], [false, null, false]);
  });

  it('a location passing again ends its episode: a later failure may be announced afresh', () => {
    const d = device('up', [at('a', 'fail', { failingFor: 600, announced: true }), at('b', 'up'), at('c', 'up')]);
    const passed = decideQuorum(d, result('a', true), SETTINGS)!;
    const a = passed.locations.find((l) => l.name === 'a')!;
    assert.equal(a.failingSinceMs, null);
    assert.equal(a.announced, false);
  });

  it('going down ends every episode', () => {
    const d = device(
      'validating',
      [
        at('a', 'fail', { failingFor: 600, failures: 12, announced: true }),
        at('b', 'fail', { ago: 30 }),
        at('c', 'up', { ago: 1 }),
      ],
      { validatingSinceMs: T - 30 * S },
    );
    const down = decideQuorum(d, result('b', false), SETTINGS)!;
    assert.equal(down.status, 'down');
    assert.deepEqual(
      down.locations.map((l) => l.announced),
      [false, false, false],
    );
  });

  it('two locations racing: the second decision sees the first one written and does not announce again', () => {
    const start = device(
      'validating',
      [
        at('a', 'fail', { ago: 2, failingFor: 32, failures: 2 }),
        at('b', 'fail', { ago: 30 }),
        at('c', 'fail', { ago: 30 }),
      ],
      { validatingSinceMs: T - 32 * S },
    );
    // The device row is locked while a decision is written: the second runs on the first's outcome.
    const first = decideQuorum(start, result('b', false), SETTINGS)!;
    assert.equal(first.event, 'device.down');
    const second = decideQuorum(
      {
        ...start,
        status: first.status,
        validatingSinceMs: null,
        locations: first.locations.map((l) => (l.name === 'c' ? { ...l, leaseToken: 'lease-c' } : l)),
      },
      result('c', false),
      SETTINGS,
    )!;
    assert.equal(second.status, 'down');
    assert.equal(second.event, null, 'down is announced once');
  });
});
