/**
 * The CLI on a fresh PostgreSQL database of its own: migrate, the first-start key, the admin
 * commands, and the first-key lock between instances. `serve` runs as a process (startServe);
 * the one-shot commands run in this process through the CLI's command code (runCommand).
 * Skipped with the reason when PostgreSQL cannot be reached, except under CI=true, where that fails.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import pgDriver from 'pg';
import { after, before, it } from 'node:test';
import { bootstrapFirstKey } from '../../cli/commands/bootstrap.ts';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { bootstrapToken, CLI_ARGS, getMe, ROOT, startServe, stopServe } from '../support/cli.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';
import { connectUntilRefused, freePort } from '../support/ports.ts';
import { runCommand, runCommandJson } from '../support/run-command.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';
import { waitFor } from '../support/wait-for.ts';

const pg: TestDatabase = await createTestDatabase();
const skip = pg.skip;

suiteOrSkip('the CLI on PostgreSQL', skip, { concurrency: 1 }, () => {
  let url = '';
  before(() => {
    if (pg.skip === undefined) url = pg.url;
  });
  after(async () => {
    if (pg.skip === undefined) await pg.drop();
  });

  it('migrate applies the schema once', async () => {
    const first = await runCommand(['migrate', '--database', url]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^applied \S+/);
    assert.equal((await runCommand(['migrate', '--database', url])).stdout, 'schema is up to date\n');
  });

  it('serve prints a first key on the empty database, once; --no-prepared-statements serves alike', async () => {
    const first = await startServe(['--database', url]);
    const token = bootstrapToken(first);
    assert.ok(token, 'the first start prints a key');
    assert.equal((await getMe(first.url, token)).status, 200);
    assert.equal(await stopServe(first), 0);
    // The second start sends statements unprepared (for PgBouncer in transaction mode, say).
    const second = await startServe(['--database', url, '--no-prepared-statements']);
    assert.equal(bootstrapToken(second), undefined);
    assert.equal((await getMe(second.url, token)).status, 200);
    const create = () =>
      fetch(`${second.url}/devices/create`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ target_type: 'domain', target_value: 'unprepared.example.com' }),
      });
    assert.equal((await create()).status, 201);
    assert.equal((await create()).status, 409);
    assert.equal(await stopServe(second, 'SIGINT'), 0);
  });

  it('users create, keys create, list and revoke', async () => {
    const { user_id } = await runCommandJson<{ user_id: number }>([
      'users',
      'create',
      '--name',
      'pg',
      '--database',
      url,
    ]);
    assert.equal(user_id, 2, 'the first-start user is 1');
    const key = await runCommandJson<{ key_id: number; token: string; scopes: string[]; allowed_ips: string[] }>([
      'keys',
      'create',
      '--user',
      String(user_id),
      '--scopes',
      'write',
      '--allow-ip',
      '::ffff:10.0.0.0/104',
      '--rate-limit',
      '7/30',
      '--database',
      url,
    ]);
    assert.deepEqual(key.scopes, ['write']);
    assert.deepEqual(key.allowed_ips, ['10.0.0.0/8']);

    const listed = await runCommand(['keys', 'list', '--user', String(user_id), '--json', '--database', url]);
    assert.doesNotMatch(listed.stdout, /mapi_|hash/);
    const { keys } = JSON.parse(listed.stdout);
    assert.equal(keys.length, 1);
    assert.equal(keys[0].id, key.key_id);
    assert.deepEqual(keys[0].rate_limit, { limit: 7, window_seconds: 30 });

    assert.equal((await runCommand(['keys', 'revoke', String(key.key_id), '--database', url])).code, 0);
    const again = await runCommand(['keys', 'revoke', String(key.key_id), '--database', url]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^monitoring-api: key \d+ was revoked already/);
  });

  it('instances opening one empty database together make a single first key', async () => {
    const fresh = await createTestDatabase();
    if (fresh.skip !== undefined) throw new Error(fresh.skip);
    const opened = await Promise.all([
      openKyselyStore(fresh.url),
      openKyselyStore(fresh.url),
      openKyselyStore(fresh.url),
    ]);
    try {
      await migrateToLatest(opened[0]!.db);
      // Separate pools, so the three transactions really run side by side.
      const results = await Promise.all(opened.map((store) => bootstrapFirstKey(store)));
      assert.equal(results.filter((result) => result !== undefined).length, 1);
      assert.equal((await opened[0]!.store.listApiKeys(1)).length, 1);
      assert.equal(await opened[0]!.store.getUser(2), undefined);
    } finally {
      await Promise.all(opened.map((store) => store.store.close()));
      await fresh.drop();
    }
  });

  it(
    'SIGTERM while the first key waits on the lock: the key made is still shown, no listening line, exit 0',
    { timeout: HANG_GUARD_MS },
    async () => {
      const fresh = await createTestDatabase();
      if (fresh.skip !== undefined) throw new Error(fresh.skip);
      const holder = new pgDriver.Client({ connectionString: fresh.url });
      await holder.connect();
      try {
        assert.equal((await runCommand(['migrate', '--database', fresh.url])).code, 0);
        // Another instance is making the first key: this one waits on the same advisory lock.
        await holder.query('select pg_advisory_lock($1)', [0x6d617069]);
        // A port known beforehand: serve listens before it makes the first key and closes its
        // listener on handling the signal; the lock is released only once it has.
        const port = await freePort();
        // The wait on the lock is a statement: with the query timeout and the drain deadline as long
        // as the test's hang guard, neither ends it however long the steps below take.
        const guard = String(HANG_GUARD_MS);
        const timeouts = ['--query-timeout', guard, '--shutdown-timeout', guard];
        const args = [...CLI_ARGS, 'serve', '--port', String(port), '--database', fresh.url, ...timeouts];
        const child = spawn(process.execPath, args, { cwd: ROOT });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk));
        const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
        // Migrated already, so the first line comes only once the key is made. Rather than wait
        // long enough for it to be blocked, watch PostgreSQL until it is: its request for the lock
        // shows in pg_locks, not granted.
        await waitFor('serve to wait on the first-key lock', async () => {
          const { rows } = await holder.query<{ waiting: number }>(
            `select count(*)::int as waiting from pg_locks where locktype = 'advisory' and not granted and objid = $1
             and database = (select oid from pg_database where datname = current_database())`,
            [0x6d617069],
          );
          return rows[0]!.waiting > 0;
        });
        assert.equal(out, '');
        // It listens meanwhile: a connection now is accepted, one after the signal is refused.
        await new Promise<void>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1', () => {
            socket.destroy();
            resolve();
          }).once('error', reject);
        });
        child.kill('SIGTERM');
        await connectUntilRefused(port);
        await holder.query('select pg_advisory_unlock($1)', [0x6d617069]);
        assert.equal(await exited, 0);
        assert.match(out, /API key \(shown once, keep it now\): mapi_/);
        assert.doesNotMatch(out, /listening on/);
      } finally {
        await holder.end();
        await fresh.drop();
      }
    },
  );
});
