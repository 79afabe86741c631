/**
 * docs/contract.md §9: bad flags, bad environment values and a database or Redis that cannot be reached
 * give one line on stderr and exit code 2, quickly, and touch nothing.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, type CliResult } from '../support/cli.ts';
import { runCommand } from '../support/run-command.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'monitoring-cli-flags-'));
  await writeFile(join(dir, 'a-file'), '');
});
after(() => rm(dir, { recursive: true, force: true }));

/** `opened`: the database was opened (and migrated, which serve reports) before the failure. */
function assertUsageError(result: CliResult, pattern?: RegExp, opened = false): void {
  assert.equal(result.code, 2, `exit code: ${result.stdout}${result.stderr}`);
  if (opened)
    assert.match(
      result.stdout,
      /^(monitoring-api: migrated the database: [^\n]*\n)?$/,
      'no first key, no listening line',
    );
  else assert.equal(result.stdout, '');
  assert.equal(result.stderr.split('\n').length, 2, `one line and its newline: ${JSON.stringify(result.stderr)}`);
  assert.match(result.stderr, /^monitoring-api: \S/);
  if (pattern !== undefined) assert.match(result.stderr, pattern);
}

const KEY = ['keys', 'create', '--user', '1'];

/** [what, argv, what the line must name]; every call names a database that must stay uncreated. */
const BAD_CALLS: [string, string[], RegExp][] = [
  ['no command at all', [], /no command/],
  ['an unknown command', ['launch'], /unknown command: launch/],
  ['an unknown users subcommand', ['users', 'delete'], /unknown users command/],
  ['an unknown keys subcommand', ['keys', 'rotate'], /unknown keys command/],
  ['an unknown flag', ['users', 'create', '--bogus'], /unknown flag --bogus/],
  ['a value for a boolean flag', ['users', 'create', '--json=yes'], /--json takes no value/],
  ['a flag without its value', ['keys', 'create', '--user'], /--user needs a value/],
  ['a flag swallowing the next flag', ['keys', 'create', '--user', '--json'], /--user needs a value/],
  ['a single-value flag given twice', [...KEY, '--name', 'a', '--name', 'b'], /--name is given more than once/],
  ['a stray argument', ['users', 'create', 'extra'], /unexpected argument "extra"/],
  ['keys create without --user', ['keys', 'create', '--json'], /needs --user/],
  ['keys list without --user', ['keys', 'list'], /needs --user/],
  ['a user id that is not a number', ['keys', 'list', '--user', 'one'], /--user/],
  ['a user id of 0', ['keys', 'list', '--user', '0'], /--user/],
  ['unknown scopes', [...KEY, '--scopes', 'admin'], /--scopes/],
  ['empty scopes', [...KEY, '--scopes', ''], /--scopes/],
  ['a trailing comma in scopes', [...KEY, '--scopes', 'read,'], /--scopes/],
  ['a prefix too long', [...KEY, '--allow-ip', '10.0.0.0/33'], /--allow-ip/],
  ['a loose IPv4 form', [...KEY, '--allow-ip', '127.1'], /--allow-ip/],
  ['two blocks in one --allow-ip', [...KEY, '--allow-ip', '10.0.0.0/8,192.168.0.0/16'], /--allow-ip/],
  ['a rate limit without a window', [...KEY, '--rate-limit', '10'], /--rate-limit/],
  ['a rate limit of zero', ['serve', '--rate-limit', '0/60'], /--rate-limit/],
  ['a fractional rate limit', [...KEY, '--rate-limit', '1.5/60'], /--rate-limit/],
  ['a date that is no date', [...KEY, '--expires', 'tomorrow'], /--expires/],
  ['a date that does not exist', [...KEY, '--expires', '2099-02-30'], /--expires/],
  ['a time without an offset', [...KEY, '--expires', '2099-01-01T00:00:00'], /--expires/],
  ['a date in the past', [...KEY, '--expires', '2001-01-01T00:00:00Z'], /in the future/],
  ['an empty host', ['serve', '--host='], /--host/],
  ['a port out of range', ['serve', '--port', '70000'], /--port/],
  ['a port that is no number', ['serve', '--port', 'http'], /--port/],
  ['a negative port', ['serve', '--port=-1'], /--port/],
  ['a body limit of zero', ['serve', '--body-limit', '0'], /--body-limit/],
  ['a header timeout of zero', ['serve', '--header-timeout', '0'], /--header-timeout must be an integer/],
  [
    'a request timeout that is no number',
    ['serve', '--request-timeout', '30s'],
    /--request-timeout must be an integer/,
  ],
  ['a keep-alive timeout past a day', ['serve', '--keep-alive-timeout', '86400001'], /--keep-alive-timeout/],
  [
    'a header timeout longer than the request timeout',
    ['serve', '--header-timeout', '20000', '--request-timeout', '15000'],
    /must not exceed --request-timeout/,
  ],
  [
    'a header timeout longer than the default request timeout',
    ['serve', '--header-timeout', '31000'],
    /--header-timeout \(31000 ms\) must not exceed --request-timeout \(30000 ms\)/,
  ],
  ['an unknown rate-limit store', ['serve', '--rate-limit-store', 'memcached://x'], /--rate-limit-store/],
  [
    'a Redis timeout that is no number',
    ['serve', '--rate-limit-store', 'redis://127.0.0.1:1?timeout=fast'],
    /timeout must be milliseconds/,
  ],
  ['a bad --trust-proxy', ['serve', '--trust-proxy', 'everyone'], /--trust-proxy/],
  ['a bad --rate-limit-fail', ['serve', '--rate-limit-fail', 'maybe'], /--rate-limit-fail/],
  ['keys revoke without an id', ['keys', 'revoke'], /needs the key id/],
  ['a revoke id that is not a number', ['keys', 'revoke', 'abc'], /key id/],
  ['two revoke ids', ['keys', 'revoke', '1', '2'], /unexpected argument "2"/],
];

/**
 * The calls run through the real binary: that its process exits 2 with the one line, for a call
 * that names no command and for one the dispatcher hands to a command. The others run in process
 * through the command code the binary runs (runCommand): the same lines and exit code, without
 * starting a process each.
 */
const THROUGH_THE_BINARY = new Set(['no command at all', 'an unknown flag']);

describe('bad calls: one line on stderr, exit 2, nothing created', { concurrency: 6 }, () => {
  for (const [what, args, pattern] of BAD_CALLS) {
    it(what, async () => {
      const database = join(dir, `${what.replaceAll(' ', '-')}.db`);
      const argv = args.length === 0 ? [] : [...args, '--database', `sqlite:${database}`];
      assertUsageError(await (THROUGH_THE_BINARY.has(what) ? runCli(argv) : runCommand(argv)), pattern);
      assert.ok(!existsSync(database), 'the database was not touched');
    });
  }

  it('every call kept in a process of its own is one of the bad calls', () => {
    for (const what of THROUGH_THE_BINARY)
      assert.ok(
        BAD_CALLS.some(([name]) => name === what),
        what,
      );
  });

  it('an unsupported database URL names the accepted forms', async () => {
    const result = await runCommand(['migrate', '--database', 'mysql://root:secret@localhost/x']);
    assertUsageError(result, /postgres:\/\/.*sqlite:/);
    assert.doesNotMatch(result.stderr, /secret/, 'a password in the URL is not repeated');
  });

  it('bad values in environment variables are named as such', async () => {
    const database = `sqlite:${join(dir, 'env.db')}`;
    // Through the binary once: the variable as the real process reads it from its environment.
    assertUsageError(await runCli(['serve', '--database', database], { PORT: '99999' }), /PORT must be/);
    assertUsageError(await runCommand(['serve', '--database', database], { PORT: '99999' }), /PORT must be/);
    assertUsageError(
      await runCommand(['serve', '--database', database], { RATE_LIMIT_STORE: 'memcached://x' }),
      /RATE_LIMIT_STORE/,
    );
    assertUsageError(await runCommand(['migrate'], { DATABASE_URL: 'mongodb://x' }), /database URL scheme "mongodb:"/);
    assert.ok(!existsSync(join(dir, 'env.db')));
  });
});

describe('what cannot be reached: one line on stderr, exit 2, without retrying', { concurrency: 4 }, () => {
  it('a PostgreSQL server that refuses the connection', async () => {
    const result = await runCommand(['users', 'create', '--database', 'postgres://postgres@127.0.0.1:1/none']);
    assertUsageError(result, /PostgreSQL at 127\.0\.0\.1:1/);
  });

  it('the same for serve, which must not go on to listen', async () => {
    const result = await runCommand(['serve', '--port', '0', '--database', 'postgresql://postgres@127.0.0.1:1/none']);
    assertUsageError(result, /cannot connect/);
  });

  it('a SQLite path that cannot be created', async () => {
    const result = await runCommand(['migrate', '--database', `sqlite:${join(dir, 'a-file', 'x.db')}`]);
    assertUsageError(result, /SQLite/);
  });

  // Node's own recursive mkdir loops forever where a parent exists but cannot hold a child: a
  // path under /proc, or under a symlink to nowhere. A child process, so a hang can be timed out.
  it('a SQLite path whose parent exists but cannot hold a folder', { timeout: HANG_GUARD_MS }, async () => {
    const nowhere = join(dir, 'to-nowhere');
    await symlink(join(dir, 'no-such-folder'), nowhere);
    const paths = [join(nowhere, 'sub', 'x.db')];
    if (existsSync('/proc/self')) paths.push('/proc/monitoring-api-test/sub/x.db');
    for (const path of paths) {
      const result = await runCli(['migrate', '--database', `sqlite:${path}`], {}, HANG_GUARD_MS);
      assertUsageError(result, /^monitoring-api: cannot open SQLite .*ENOENT/);
    }
    assert.ok(!existsSync(join(dir, 'no-such-folder')));
  });

  it('a Redis that refuses the connection; the store opened before it is closed again', async () => {
    const database = `sqlite:${join(dir, 'redis.db')}`;
    const result = await runCommand([
      'serve',
      '--port',
      '0',
      '--database',
      database,
      '--rate-limit-store',
      'redis://127.0.0.1:1',
    ]);
    assertUsageError(result, /Redis/, true);
  });

  it('an address that is taken', async () => {
    const { createServer } = await import('node:net');
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const result = await runCommand([
        'serve',
        '--port',
        String(port),
        '--database',
        `sqlite:${join(dir, 'taken.db')}`,
      ]);
      assertUsageError(result, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: EADDRINUSE`), true);
    } finally {
      blocker.close();
    }
  });
});
