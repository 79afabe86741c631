/**
 * The quorum decision's rules beyond the majority (engine/devices/location-quorum.ts), as a table:
 * the re-check rule comes before the quorum (a location's failure counts once its own re-check
 * confirms it), `status_since` survives a silent `validating`, and a location's failing episode
 * counts only its own checks made while the device is up.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideQuorum, type QuorumDecision } from '../../engine/devices/location-quorum.ts';
import { at, decideRows, device, ours, result, S, SETTINGS, T, type Row } from './quorum-table.ts';

const ROWS: Row[] = [
  {
    name: 'a blip: every location has failed once, none re-checked yet: still validating, no down',
    device: device(
      'validating',
      [at('a', 'fail', { ago: 0.2 }), at('b', 'fail', { ago: 0.1 }), at('c', 'up', { ago: 40 })],
      { validatingSinceMs: T - 0.2 * S, upSinceMs: T - 600 * S },
    ),
    result: result('c', false),
    expect: {
      status: 'validating',
      event: null,
      secondOpinion: false,
      verdicts: { a: 'failing', b: 'failing', c: 'failing' },
    },
  },
  {
    name: 'the blip is over: the first re-check passes, two first failures are left: still validating',
    device: device(
      'validating',
      [at('a', 'fail', { ago: 30 }), at('b', 'fail', { ago: 29.9 }), at('c', 'fail', { ago: 29.8 })],
      { validatingSinceMs: T - 30 * S, upSinceMs: T - 600 * S },
    ),
    result: result('a', true),
    expect: { status: 'validating', event: null },
  },
  {
    name: 'the second re-check passes too: up, silently, up since before the failure',
    device: device(
      'validating',
      [at('a', 'up', { ago: 0.2 }), at('b', 'fail', { ago: 30 }), at('c', 'fail', { ago: 29.9 })],
      { validatingSinceMs: T - 30 * S, upSinceMs: T - 600 * S },
    ),
    result: result('b', true),
    expect: { status: 'up', event: null, locationFailing: [], upSinceMs: T - 600 * S },
  },
  {
    name: '2 of 3 failing, each confirmed by a re-check a retry delay after its first failure: down, each verdict named',
    device: device(
      'validating',
      [
        at('a', 'fail', { ago: 1, failingFor: 31, failures: 2 }),
        at('b', 'up', { ago: 1 }),
        at('c', 'fail', { ago: 30 }),
      ],
      { validatingSinceMs: T - 31 * S },
    ),
    result: result('c', false),
    expect: { status: 'down', event: 'device.down', verdicts: { a: 'failing', b: 'up', c: 'failing' } },
  },
  {
    name: 'a second failure sooner than the retry delay (a check on demand) does not confirm: still validating',
    device: device(
      'validating',
      [
        at('a', 'fail', { ago: 5 }),
        at('b', 'fail', { ago: 1, failingFor: 35, failures: 2 }),
        at('c', 'up', { ago: 40 }),
      ],
      { validatingSinceMs: T - 35 * S },
    ),
    result: result('a', false),
    expect: { status: 'validating', event: null },
  },
  {
    name: 'a location confirmed alone (1 of 3), the second just failing for the first time: still validating',
    device: device(
      'validating',
      [
        at('a', 'fail', { ago: 1, failingFor: 31, failures: 2 }),
        at('b', 'up', { ago: 40 }),
        at('c', 'up', { ago: 40 }),
      ],
      { validatingSinceMs: T - 31 * S },
    ),
    result: result('b', false),
    expect: { status: 'validating', event: null },
  },
  {
    name: 'failuresBeforeDown 1: a second location failing once is down at once',
    device: device(
      'validating',
      [at('a', 'fail', { ago: 0.2 }), at('b', 'up', { ago: 40 }), at('c', 'up', { ago: 40 })],
      {
        validatingSinceMs: T - 0.2 * S,
      },
    ),
    result: result('b', false),
    settings: { failuresBeforeDown: 1 },
    expect: { status: 'down', event: 'device.down' },
  },
  {
    name: 'failuresBeforeDown 3: two failures a retry delay apart are not enough',
    device: device(
      'validating',
      [
        at('a', 'fail', { ago: 1, failingFor: 61, failures: 3 }),
        at('b', 'fail', { ago: 30 }),
        at('c', 'up', { ago: 40 }),
      ],
      { validatingSinceMs: T - 61 * S },
    ),
    result: result('b', false),
    settings: { failuresBeforeDown: 3 },
    expect: { status: 'validating', event: null },
  },
  {
    name: 'validating since a first check that failed (never up before): up since now',
    device: device('validating', [at('a', 'fail', { ago: 2 }), at('b', 'up', { ago: 1 }), at('c', 'up', { ago: 40 })], {
      validatingSinceMs: T - 2 * S,
    }),
    result: result('c', true),
    expect: { status: 'up', upSinceMs: T },
  },
  {
    name: 'up, a location whose check an interval after its first failure still fails: one device.location_failing',
    device: device('up', [
      at('a', 'fail', { ago: 30, failingFor: 60, failures: 2 }),
      at('b', 'up'),
      at('c', 'up', { ago: 30 }),
    ]),
    result: result('a', false),
    expect: { status: 'up', locationFailing: ['a'], verdicts: { a: 'failing', b: 'up', c: 'up' } },
  },
  {
    name: 'the others checking an interval after a failure do not make it a whole interval long: nothing announced',
    device: device('up', [
      at('a', 'fail', { ago: 30, failingFor: 60, failures: 2 }),
      at('b', 'up'),
      at('c', 'up', { ago: 30 }),
    ]),
    result: result('b', true),
    expect: { status: 'up', locationFailing: [] },
  },
  {
    name: 'one failure, and another location checks an interval later (retry delay = interval): nothing announced',
    device: device('up', [at('a', 'fail', { ago: 30 }), at('b', 'up', { ago: 30 }), at('c', 'up', { ago: 10 })], {
      intervalS: 30,
    }),
    result: result('b', true),
    expect: { status: 'up', locationFailing: [], event: null },
  },
  {
    name: 'the same episode already announced: nothing more',
    device: device('up', [
      at('a', 'fail', { ago: 30, failingFor: 600, announced: true }),
      at('b', 'up'),
      at('c', 'up', { ago: 30 }),
    ]),
    result: result('a', false),
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
    device: device('up', [at('a', 'fail', { ago: 30, failingFor: 50 }), at('b', 'up'), at('c', 'up', { ago: 30 })]),
    result: result('a', false),
    expect: { status: 'up', locationFailing: [] },
  },
  {
    name: 'recovery from an outage of all three: up on two passing, the third still failing: device.up, no location_failing',
    device: device('down', [
      at('a', 'up', { ago: 1 }),
      at('b', 'fail', { ago: 30, failingFor: 900, failures: 20 }),
      at('c', 'fail', { ago: 40, failingFor: 900, failures: 20 }),
    ]),
    result: result('b', true),
    expect: { status: 'up', event: 'device.up', locationFailing: [], upSinceMs: T },
  },
  {
    name: 'after a recovery, the third still failing by its own check less than an interval later: nothing yet',
    device: device(
      'up',
      [
        at('a', 'up', { ago: 20 }),
        at('b', 'up', { ago: 20 }),
        at('c', 'fail', { ago: 60, failingFor: 960, failures: 20 }),
      ],
      { upSinceMs: T - 20 * S },
    ),
    result: result('c', false),
    expect: { status: 'up', locationFailing: [] },
  },
  {
    name: 'after a recovery, the third still failing by its own check an interval later: one device.location_failing',
    device: device(
      'up',
      [
        at('a', 'up', { ago: 20 }),
        at('b', 'up', { ago: 20 }),
        at('c', 'fail', { ago: 20, failingFor: 960, failures: 21 }),
      ],
      { upSinceMs: T - 60 * S },
    ),
    result: result('c', false),
    expect: { status: 'up', locationFailing: ['c'] },
  },
];

describe('the re-check rule and failing episodes of the quorum decision, table-driven', () => {
  decideRows(ROWS);

  it('failures are counted per location, kept through our own failures, and reset by a pass', () => {
    const d = device('validating', [at('a', 'fail', { failures: 3 }), at('b', 'up'), at('c', 'up')], {
      validatingSinceMs: T - 60 * S,
    });
    const count = (decided: QuorumDecision | null, name: string) =>
      decided!.locations.find((l) => l.name === name)!.failures;
    assert.equal(count(decideQuorum(d, result('a', false), SETTINGS), 'a'), 4);
    assert.equal(count(decideQuorum(d, ours('a'), SETTINGS), 'a'), 3);
    assert.equal(count(decideQuorum(d, result('a', true), SETTINGS), 'a'), 0);
    assert.equal(count(decideQuorum(d, result('b', false), SETTINGS), 'b'), 1);
  });
});
