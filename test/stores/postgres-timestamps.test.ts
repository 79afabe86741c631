import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { openKyselyStore, type OpenedKyselyStore } from '../../stores/kysely/index.ts';
import { isoFromUtcText } from '../../stores/kysely/drivers/pg-timestamps.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';

// openKyselyStore's pool reads a timestamptz in UTC's plain text form straight into the API's
// form (stores/kysely/drivers/pg-timestamps.ts); anything else still goes through pg's own parser. Either
// way the instant must be the one a Date would have given.
describe('timestamptz text into the API form', () => {
  const cases: [text: string, iso: string][] = [
    ['2026-11-26 21:28:02+00', '2026-11-26T21:28:02.000Z'],
    ['2026-11-26 21:28:02.1+00', '2026-11-26T21:28:02.100Z'],
    ['2026-11-26 21:28:02.12+00', '2026-11-26T21:28:02.120Z'],
    ['2026-11-26 21:28:02.123+00', '2026-11-26T21:28:02.123Z'],
    // Cut, not rounded, as a Date cuts it.
    ['2026-11-26 21:28:02.123999+00', '2026-11-26T21:28:02.123Z'],
    ['0001-01-01 00:00:00+00', '0001-01-01T00:00:00.000Z'],
  ];
  for (const [text, iso] of cases) {
    it(`${text} is ${iso}, the instant pg's Date gives`, () => {
      assert.equal(isoFromUtcText(text), iso);
      assert.equal((pg.types.getTypeParser(1184, 'text')(text) as Date).toISOString(), iso);
    });
  }
  for (const text of [
    '2026-11-26 22:28:02+01',
    '2026-11-27 02:58:02+05:30',
    '10000-01-01 00:00:00+00',
    '0044-03-15 12:00:00+00 BC',
    'infinity',
    '-infinity',
  ]) {
    it(`${text} is left to pg's parser`, () => assert.equal(isoFromUtcText(text), undefined));
  }
});

const database: TestDatabase = await createTestDatabase();

describe('PostgreSQL timestamps through openKyselyStore', { skip: database.skip }, () => {
  let opened: OpenedKyselyStore;
  before(async () => {
    if (database.skip !== undefined) return;
    opened = await openKyselyStore(database.url, { poolSize: 1 });
  });
  after(async () => {
    if (database.skip !== undefined) return;
    await opened.store.close();
    await database.drop();
  });

  const instants = [
    '2026-11-26T21:28:02.000Z',
    '2026-11-26T21:28:02.007Z',
    '1999-12-31T23:59:59.999Z',
    '2038-01-19T03:14:08.120Z',
  ];

  it('a UTC session reads each timestamptz as the API writes it', async () => {
    await sql`set time zone 'UTC'`.execute(opened.db);
    for (const at of instants) {
      const { rows } = await sql<{ at: unknown }>`select ${at}::timestamptz as at`.execute(opened.db);
      assert.equal(rows[0]!.at, at);
    }
  });

  it('a session in another time zone reads the same instants, as Dates', async () => {
    await sql`set time zone 'Asia/Kolkata'`.execute(opened.db);
    try {
      for (const at of instants) {
        const { rows } = await sql<{ at: unknown }>`select ${at}::timestamptz as at`.execute(opened.db);
        assert.ok(rows[0]!.at instanceof Date);
        assert.equal(rows[0]!.at.toISOString(), at);
      }
    } finally {
      await sql`set time zone 'UTC'`.execute(opened.db);
    }
  });

  it('microseconds a Date cannot hold are cut to milliseconds', async () => {
    const { rows } = await sql<{ at: unknown }>`select '2026-11-26 21:28:02.999999+00'::timestamptz as at`.execute(
      opened.db,
    );
    assert.equal(rows[0]!.at, '2026-11-26T21:28:02.999Z');
  });
});
