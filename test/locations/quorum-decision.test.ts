/**
 * The quorum decision of a device checked from several locations, as a table: each row is a
 * device's state, one location's result, and what must follow (engine/devices/location-quorum.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decideQuorum,
  type LocationResult,
  type LocationState,
  type QuorumDecision,
  type QuorumDevice,
} from '../../engine/devices/location-quorum.ts';

const T = Date.parse('2026-03-01T12:00:00.000Z');
const S = 1000;
const SETTINGS = { retryDelayS: 30, probeTimeoutMs: 10_000 };

/** A location: `up`/`fail` with a result `ago` seconds old, `none` never checked; live unless told. */
function at(
  name: string,
  last: 'up' | 'fail' | 'none',
  options: { ago?: number; live?: boolean; failingFor?: number; announced?: boolean } = {},
): LocationState {
  const ago = options.ago ?? 5;
  return {
    name,
    live: options.live ?? true,
    leaseToken: `lease-${name}`,
    last: last === 'none' ? null : { ok: last === 'up', checkedAtMs: T - ago * S },
    failingSinceMs: last === 'fail' ? T - (options.failingFor ?? ago) * S : null,
    announced: options.announced ?? false,
  };
}

function device(status: QuorumDevice['status'], locations: LocationState[], extra: Partial<QuorumDevice> = {}) {
  return { status, validatingSinceMs: null, quorum: 2, intervalS: 60, locations, ...extra };
}

const result = (location: string, ok: boolean, token = `lease-${location}`, ours = false): LocationResult => ({
  location,
  leaseToken: token,
  ok,
  ours,
  checkedAtMs: T,
});
/** A check that failed on the worker's side (engine/our-failures.ts), not the target's. */
const ours = (location: string) => result(location, false, `lease-${location}`, true);

interface Row {
  name: string;
  device: QuorumDevice;
  result: LocationResult;
  expect: Partial<Pick<QuorumDecision, 'status' | 'quorumState' | 'event' | 'locationFailing' | 'secondOpinion'>> & {
    verdicts?: Record<string, string>;
  };
}

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
    expect: { status: 'validating', event: null, secondOpinion: true, quorumState: 'met' },
  },
  {
    name: '2 of 3 failing once all answered since the first failure: down, announced with each verdict',
    device: device('validating', [at('a', 'fail', { ago: 2 }), at('b', 'up', { ago: 1 }), at('c', 'up', { ago: 40 })], {
      validatingSinceMs: T - 2 * S,
    }),
    result: result('c', false),
    expect: { status: 'down', event: 'device.down', verdicts: { a: 'failing', b: 'up', c: 'failing' } },
  },
  {
    name: '1 of 3 failing, the others pass after it: back to up, silently',
    device: device('validating', [at('a', 'fail', { ago: 2 }), at('b', 'up', { ago: 1 }), at('c', 'up', { ago: 40 })], {
      validatingSinceMs: T - 2 * S,
    }),
    result: result('c', true),
    expect: { status: 'up', event: null, locationFailing: [], secondOpinion: false },
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
    name: 'up, one location failing below quorum for a whole interval: one device.location_failing',
    device: device('up', [at('a', 'fail', { ago: 30, failingFor: 60 }), at('b', 'up'), at('c', 'up', { ago: 30 })]),
    result: result('b', true),
    expect: { status: 'up', locationFailing: ['a'], verdicts: { a: 'failing', b: 'up', c: 'up' } },
  },
  {
    name: 'the same episode already announced: nothing more',
    device: device('up', [
      at('a', 'fail', { ago: 30, failingFor: 600, announced: true }),
      at('b', 'up'),
      at('c', 'up', { ago: 30 }),
    ]),
    result: result('b', true),
    expect: { status: 'up', locationFailing: [], event: null },
  },
  {
    name: 'a location already failing below quorum fails again: no new validation, no second opinion',
    device: device('up', [
      at('a', 'fail', { ago: 60, failingFor: 120, announced: true }),
      at('b', 'up'),
      at('c', 'up'),
    ]),
    result: result('a', false),
    expect: { status: 'up', secondOpinion: false, locationFailing: [] },
  },
  {
    name: 'failing for less than an interval: not announced yet',
    device: device('up', [at('a', 'fail', { ago: 30, failingFor: 30 }), at('b', 'up'), at('c', 'up', { ago: 30 })]),
    result: result('b', true),
    expect: { status: 'up', locationFailing: [] },
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
    name: 'quorum 1 of 1 (the single-location rule): a failure validates, a second one is down',
    device: device('validating', [at('a', 'fail', { ago: 30 })], { quorum: 1, validatingSinceMs: T - 30 * S }),
    result: result('a', false),
    expect: { status: 'down', event: 'device.down' },
  },
  {
    name: 'our failure while up: the location sits the decision out (stale), nothing moves, nothing is asked',
    device: device('up', [at('a', 'up'), at('b', 'up'), at('c', 'up')]),
    result: ours('a'),
    expect: {
      status: 'up',
      event: null,
      secondOpinion: false,
      locationFailing: [],
      quorumState: 'met',
      verdicts: { a: 'stale', b: 'up', c: 'up' },
    },
  },
  {
    name: 'our failure while validating: not counted toward the quorum, no down',
    device: device('validating', [at('a', 'fail', { ago: 2 }), at('b', 'up', { ago: 1 }), at('c', 'up', { ago: 40 })], {
      validatingSinceMs: T - 2 * S,
    }),
    result: ours('c'),
    expect: { status: 'validating', event: null, verdicts: { a: 'failing', b: 'up', c: 'stale' } },
  },
  {
    name: 'our failure where a failing target would be down: the status holds',
    device: device(
      'validating',
      [at('a', 'fail', { ago: 2 }), at('b', 'up', { ago: 40 }), at('c', 'up', { ago: 40 })],
      {
        validatingSinceMs: T - 2 * S,
      },
    ),
    result: ours('b'),
    expect: { status: 'validating', event: null, quorumState: 'met' },
  },
  {
    name: 'our failure leaves fewer eligible locations than the quorum: insufficient, the status holds',
    device: device('down', [at('a', 'fail'), at('b', 'fail', { live: false }), at('c', 'fail')]),
    result: ours('c'),
    expect: {
      status: 'down',
      event: null,
      quorumState: 'insufficient',
      verdicts: { a: 'failing', b: 'stale', c: 'stale' },
    },
  },
  {
    name: 'our failure while up with a location failing a whole interval: nothing announced at this write',
    device: device('up', [at('a', 'fail', { ago: 30, failingFor: 60 }), at('b', 'up'), at('c', 'up', { ago: 30 })]),
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
    expect: { status: 'up', event: null, verdicts: { a: 'up', b: 'up', c: 'unknown' } },
  },
];

describe('the quorum decision, table-driven', () => {
  for (const row of ROWS) {
    it(row.name, () => {
      const decision = decideQuorum(row.device, row.result, SETTINGS);
      assert.ok(decision, 'not fenced');
      const picked: Record<string, unknown> = {};
      for (const key of Object.keys(row.expect)) picked[key] = decision[key as keyof QuorumDecision];
      assert.deepEqual(picked, row.expect);
    });
  }

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
      [at('a', 'fail', { failingFor: 600, announced: true }), at('b', 'up'), at('c', 'up', { ago: 1 })],
      { validatingSinceMs: T - 10 * S },
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
      [at('a', 'fail', { ago: 2 }), at('b', 'up', { ago: 40 }), at('c', 'up', { ago: 40 })],
      {
        validatingSinceMs: T - 2 * S,
      },
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
