/**
 * The admin commands (migrate, users, keys) against a temporary SQLite file, run in this process
 * through the CLI's own command code (runCommand); a few calls go through the real binary as a
 * child process (runCli), for what only a process shows: its exit code and output, the
 * environment it reads, and the version it finds from dist/.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, runCliJson } from '../support/cli.ts';
import { runCommand, runCommandJson } from '../support/run-command.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'monitoring-cli-admin-'));
});
after(() => rm(dir, { recursive: true, force: true }));

const db = (name: string) => `sqlite:${join(dir, `${name}.db`)}`;

function assertOneErrorLine(stderr: string, pattern: RegExp): void {
  assert.equal(stderr.split('\n').length, 2, `one line and its newline: ${JSON.stringify(stderr)}`);
  assert.match(stderr, /^monitoring-api: /);
  assert.match(stderr, pattern);
}

describe('admin commands', { concurrency: 4 }, () => {
  it('users create prints the id, as a sentence or as exactly one JSON object', async () => {
    // Through the binary: an admin command's exit code and output as the process gives them.
    const human = await runCli(['users', 'create', '--name', 'acme', '--database', db('users')]);
    assert.equal(human.code, 0, human.stderr);
    assert.equal(human.stdout, 'created user 1\n');
    const json = await runCommand(['users', 'create', '--json', '--database', db('users')]);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(json.stdout, '{"user_id":2}\n');
  });

  it('keys create takes every flag and prints the token once; keys list never shows it or its hash', async () => {
    const database = db('keys');
    await runCommandJson(['users', 'create', '--database', database]);
    const created = await runCommand([
      'keys',
      'create',
      '--user',
      '1',
      '--scopes',
      'read',
      '--allow-ip',
      '10.1.2.3/8',
      '--allow-ip',
      '2001:db8::/32',
      '--name',
      'ci',
      '--rate-limit',
      '10/60',
      '--expires',
      '2099-01-01T00:00:00+02:00',
      '--json',
      '--database',
      database,
    ]);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout.trim().split('\n').length, 1);
    const key = JSON.parse(created.stdout);
    assert.deepEqual(Object.keys(key).sort(), ['allowed_ips', 'key_id', 'scopes', 'token', 'user_id']);
    assert.equal(key.key_id, 1);
    assert.equal(key.user_id, 1);
    assert.deepEqual(key.scopes, ['read']);
    assert.deepEqual(key.allowed_ips, ['10.0.0.0/8', '2001:db8::/32'], 'stored in canonical form');
    assert.match(key.token, /^mapi_[A-Za-z0-9_-]{43}$/);

    const human = await runCommand(['keys', 'create', '--user', '1', '--database', database]);
    assert.equal(human.code, 0, human.stderr);
    const shown = human.stdout.match(/mapi_[A-Za-z0-9_-]{43}/g);
    assert.equal(shown?.length, 1, 'the human form prints the token once too');

    const listed = await runCommand(['keys', 'list', '--user', '1', '--json', '--database', database]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(!listed.stdout.includes(key.token) && !listed.stdout.includes(shown![0]));
    assert.doesNotMatch(listed.stdout, /mapi_|hash/);
    const { keys } = JSON.parse(listed.stdout);
    assert.equal(keys.length, 2);
    assert.deepEqual(Object.keys(keys[0]).sort(), [
      'allowed_ips',
      'created_at',
      'expires_at',
      'id',
      'last_used_at',
      'name',
      'rate_limit',
      'revoked_at',
      'scopes',
      'user_id',
    ]);
    assert.equal(keys[0].name, 'ci');
    assert.deepEqual(keys[0].rate_limit, { limit: 10, window_seconds: 60 });
    assert.equal(keys[0].expires_at, '2098-12-31T22:00:00.000Z');
    assert.equal(keys[1].rate_limit, null);

    const table = await runCommand(['keys', 'list', '--user', '1', '--database', database]);
    assert.doesNotMatch(table.stdout, /mapi_/);
    assert.match(
      table.stdout,
      /^1\tci\tread\texpires 2098-12-31T22:00:00.000Z limit 10\/60s from 10.0.0.0\/8 2001:db8::\/32\tlast used never\n2\t-\tread,write\tactive\t/,
    );
  });

  it('migrate says what it applied, then that the schema is up to date', async () => {
    const first = await runCommand(['migrate', '--database', db('migrate')]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^applied \S+/);
    const second = await runCommand(['migrate', '--database', db('migrate')]);
    assert.equal(second.stdout, 'schema is up to date\n');
  });

  it('DATABASE_URL is the default database; --database wins over it', async () => {
    // Through the binary: the variable as the real process reads it from its environment.
    const viaEnv = await runCliJson(['users', 'create'], { DATABASE_URL: db('env') });
    assert.deepEqual(viaEnv, { user_id: 1 });
    assert.deepEqual(await runCommandJson(['users', 'create'], { DATABASE_URL: db('env') }), { user_id: 2 });
    const viaFlag = await runCommandJson(['users', 'create', '--database', db('flag')], {
      DATABASE_URL: 'mysql://wrong',
    });
    assert.deepEqual(viaFlag, { user_id: 1 });
  });

  it('keys revoke: done once, then exit 1 with one line; an unknown id likewise', async () => {
    const database = db('revoke');
    await runCommandJson(['users', 'create', '--database', database]);
    const key = await runCommandJson<{ key_id: number }>(['keys', 'create', '--user', '1', '--database', database]);
    const revoked = await runCommand(['keys', 'revoke', String(key.key_id), '--database', database]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal(revoked.stdout, `revoked key ${key.key_id}\n`);
    // Through the binary: exit code 1 as the process gives it.
    const again = await runCli(['keys', 'revoke', String(key.key_id), '--database', database]);
    assert.equal(again.code, 1);
    assertOneErrorLine(again.stderr, /revoked already/);
    const unknown = await runCommand(['keys', 'revoke', '42', '--database', database]);
    assert.equal(unknown.code, 1);
    assertOneErrorLine(unknown.stderr, /no key with id 42/);
    const { keys } = await runCommandJson<{ keys: { revoked_at: string | null }[] }>([
      'keys',
      'list',
      '--user',
      '1',
      '--database',
      database,
    ]);
    assert.match(keys[0]!.revoked_at ?? '', /^\d{4}-\d\d-\d\dT/);
  });

  it('keys revoke --json prints one JSON object, like every other command', async () => {
    const database = db('revoke-json');
    await runCommandJson(['users', 'create', '--database', database]);
    const key = await runCommandJson<{ key_id: number }>(['keys', 'create', '--user', '1', '--database', database]);
    const revoked = await runCommandJson<Record<string, unknown>>([
      'keys',
      'revoke',
      String(key.key_id),
      '--database',
      database,
    ]);
    assert.deepEqual(Object.keys(revoked), ['key_id', 'user_id', 'revoked_at']);
    assert.equal(revoked.key_id, key.key_id);
    assert.equal(revoked.user_id, 1);
    assert.match(String(revoked.revoked_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const again = await runCommand(['keys', 'revoke', String(key.key_id), '--json', '--database', database]);
    assert.equal(again.code, 1);
    assert.equal(again.stdout, '');
    assertOneErrorLine(again.stderr, /revoked already/);
  });

  it('a user that does not exist: keys create and keys list exit 1 with one line', async () => {
    const database = db('nouser');
    const create = await runCommand(['keys', 'create', '--user', '7', '--database', database]);
    assert.equal(create.code, 1);
    assertOneErrorLine(create.stderr, /no user with id 7/);
    const listed = await runCommand(['keys', 'list', '--user', '7', '--json', '--database', database]);
    assert.equal(listed.code, 1);
    assert.equal(listed.stdout, '');
    assertOneErrorLine(listed.stderr, /no user with id 7/);
  });

  it('--help and --version answer on stdout with exit 0', async () => {
    const help = await runCommand(['--help']);
    assert.equal(help.code, 0);
    for (const command of [
      'serve',
      'migrate',
      'users create',
      'keys create',
      'keys list',
      'keys revoke',
      '--body-limit',
    ]) {
      assert.ok(help.stdout.includes(command), command);
    }
    assert.equal((await runCommand(['keys', 'create', '--help'])).stdout, help.stdout);
    assert.equal((await runCommand(['help'])).stdout, help.stdout);
    // The binary finds package.json from dist/cli/, the sources from cli/: both give the version.
    const version = await runCli(['--version']);
    assert.equal(version.code, 0);
    assert.match(version.stdout, /^\d+\.\d+\.\d+\S*\n$/);
    const inProcess = await runCommand(['-v']);
    assert.deepEqual([inProcess.code, inProcess.stdout, inProcess.stderr], [0, version.stdout, '']);
  });
});
