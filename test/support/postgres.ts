import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server the tests use; TEST_POSTGRES_URL points them elsewhere (an admin login is needed). */
const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export type TestDatabase = { url: string; drop(): Promise<void>; skip?: undefined } | { skip: string };

function where(): string {
  const url = new URL(ADMIN_URL);
  return `${url.hostname}:${url.port === '' ? '5432' : url.port}`;
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  // No connection timeout: on a busy machine a new backend can take seconds to start, and a server
  // that is down refuses at once anyway.
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function reasonOf(error: unknown): string {
  // A refused connection to a name with several addresses is an AggregateError with no message.
  if (error instanceof AggregateError && error.message === '') return error.errors.map(reasonOf).join('; ');
  if (error instanceof Error) return error.message === '' ? error.name : error.message;
  return String(error);
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Why the server cannot be used, as a skip; on CI, where the PostgreSQL tests must run, a failure. */
function unusable(reason: string, cause?: unknown): { skip: string } {
  if (process.env.CI === 'true') throw new Error(reason, { cause });
  return { skip: reason };
}

/**
 * Whether the tests can use the server: reachable, and the login may create databases. Without
 * it the PostgreSQL tests are skipped with the returned reason, except on CI, where this throws.
 * It asks rather than making and dropping a database: a `create database` costs the server a
 * tenth of a second of CPU or more, and several test files probe once each.
 */
export async function probePostgres(): Promise<{ skip?: string }> {
  let canCreate: boolean;
  try {
    canCreate = await withAdmin(async (client) => {
      const { rows } = await client.query<{ allowed: boolean }>(
        'select rolcreatedb or rolsuper as allowed from pg_roles where rolname = current_user',
      );
      return rows[0]?.allowed === true;
    });
  } catch (error) {
    return unusable(`PostgreSQL not reachable at ${where()}: ${reasonOf(error)}`, error);
  }
  return canCreate ? {} : unusable(`the login at ${where()} may not create databases`);
}

/**
 * The migrated database `npm test` makes once per run (test/support/postgres-template.ts) and
 * names here for the test processes; unset when a file runs by hand.
 */
export const TEMPLATE_VARIABLE = 'TEST_POSTGRES_TEMPLATE';

/**
 * Creates a database of its own for one test file: empty, or with `{ migrated: true }` a copy of
 * the run's migrated template where there is one (the caller still runs the migrations, which
 * then find nothing to do). Without a reachable server the PostgreSQL tests are skipped with the
 * reason, except on CI, where they must fail instead.
 */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const name = `monitoring_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const template = options.migrated === true ? process.env[TEMPLATE_VARIABLE] : undefined;
  try {
    await withAdmin((client) =>
      client.query(`create database ${quote(name)}${template === undefined ? '' : ` template ${quote(template)}`}`),
    );
  } catch (error) {
    return unusable(`PostgreSQL not reachable at ${where()}: ${reasonOf(error)}`, error);
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      // FORCE (PostgreSQL 13 and later) ends the sessions still connected, a pool left open
      // somewhere included, and holds off new ones while it drops, so none can get in between.
      await withAdmin((client) => client.query(`drop database if exists ${quote(name)} with (force)`));
    },
  };
}
