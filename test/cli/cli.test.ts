import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, startServe } from '../support/cli.ts';
import { createTestDatabase } from '../support/postgres.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'monitoring-cli-'));
});
after(() => rm(dir, { recursive: true, force: true }));

const db = (name: string) => `sqlite:${join(dir, `${name}.db`)}`;
const me = (url: string, token: string) => fetch(`${url}/me`, { headers: { authorization: `Bearer ${token}` } });

describe('admin commands', { concurrency: 4 }, () => {
  it('users create prints the id, as a sentence or as JSON', async () => {
    const human = await runCli(['users', 'create', '--name', 'acme', '--database', db('users')]);
    assert.equal(human.code, 0);
    assert.match(human.stdout, /^created user 1\n$/);
    const json = await runCli(['users', 'create', '--json', '--database', db('users')]);
    assert.deepEqual(JSON.parse(json.stdout), { user_id: 2 });
  });

  it('keys create takes every flag, prints the token once, and keys list never shows it', async () => {
    const database = db('keys');
    await runCli(['users', 'create', '--database', database]);
    const created = await runCli(['keys', 'create', '--user', '1', '--scopes', 'read', '--allow-ip', '10.0.0.0/8',
      '--allow-ip', '2001:db8::/32', '--name', 'ci', '--rate-limit', '10/60', '--expires', '2099-01-01T00:00:00Z', '--json',
      '--database', database]);
    assert.equal(created.code, 0, created.stderr);
    const key = JSON.parse(created.stdout);
    assert.deepEqual(Object.keys(key).sort(), ['allowed_ips', 'key_id', 'scopes', 'token', 'user_id']);
    assert.deepEqual(key.scopes, ['read']);
    assert.deepEqual(key.allowed_ips, ['10.0.0.0/8', '2001:db8::/32']);
    assert.match(key.token, /^mapi_[A-Za-z0-9_-]{43}$/);

    const listed = await runCli(['keys', 'list', '--user', '1', '--json', '--database', database]);
    assert.equal(listed.code, 0);
    assert.ok(!listed.stdout.includes(key.token));
    assert.ok(!/hash/.test(listed.stdout));
    const [shown] = JSON.parse(listed.stdout).keys;
    assert.equal(shown.name, 'ci');
    assert.deepEqual(shown.rate_limit, { limit: 10, window_seconds: 60 });
    assert.equal(shown.expires_at, '2099-01-01T00:00:00.000Z');
    const human = await runCli(['keys', 'list', '--user', '1', '--database', database]);
    assert.ok(!human.stdout.includes(key.token));
    assert.match(human.stdout, /^1\tci\tread\t/);
  });

  it('migrate creates the schema once', async () => {
    const first = await runCli(['migrate', '--database', db('migrate')]);
    assert.match(first.stdout, /^applied /);
    const second = await runCli(['migrate', '--database', db('migrate')]);
    assert.equal(second.stdout, 'schema is up to date\n');
  });

  it('keys revoke of an unknown or revoked key is exit 1 with one line', async () => {
    const result = await runCli(['keys', 'revoke', '42', '--database', db('revoke')]);
    assert.equal(result.code, 1);
    assert.equal(result.stderr.trim().split('\n').length, 1);
  });

  const badCalls: [string, string[]][] = [
    ['an unknown command', ['launch']],
    ['an unknown subcommand', ['keys', 'rotate']],
    ['an unknown flag', ['users', 'create', '--bogus']],
    ['a flag without its value', ['keys', 'create', '--user']],
    ['a missing --user', ['keys', 'create']],
    ['a user id that is not a number', ['keys', 'list', '--user', 'one']],
    ['unknown scopes', ['keys', 'create', '--user', '1', '--scopes', 'admin']],
    ['a bad CIDR', ['keys', 'create', '--user', '1', '--allow-ip', '10.0.0.0/33']],
    ['a loose IPv4 form', ['keys', 'create', '--user', '1', '--allow-ip', '127.1']],
    ['a bad rate limit', ['keys', 'create', '--user', '1', '--rate-limit', '10']],
    ['a zero rate limit', ['serve', '--rate-limit', '0/60']],
    ['a bad date', ['keys', 'create', '--user', '1', '--expires', 'tomorrow']],
    ['a date in the past', ['keys', 'create', '--user', '1', '--expires', '2001-01-01T00:00:00Z']],
    ['a port out of range', ['serve', '--port', '70000']],
    ['an unsupported database URL', ['migrate', '--database', 'mysql://localhost/x']],
    ['an unknown rate-limit store', ['serve', '--rate-limit-store', 'memcached://x']],
    ['a bad --trust-proxy', ['serve', '--trust-proxy', 'everyone']],
    ['a bad --rate-limit-fail', ['serve', '--rate-limit-fail', 'maybe']],
    ['a revoke id that is not a number', ['keys', 'revoke', 'abc']],
  ];
  for (const [what, args] of badCalls) {
    it(`${what}: one line on stderr, exit 2`, async () => {
      const result = await runCli([...args, '--database', db('bad')].filter((a, i, all) => !(a === '--database' && all.indexOf('--database') !== i)));
      assert.equal(result.code, 2, `${result.stdout}${result.stderr}`);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.match(result.stderr, /^monitoring-api: /);
    });
  }

  it('an unreachable PostgreSQL: one line, exit 2, quickly', async () => {
    const started = Date.now();
    const result = await runCli(['users', 'create', '--database', 'postgres://postgres@127.0.0.1:1/none']);
    assert.equal(result.code, 2);
    assert.equal(result.stderr.trim().split('\n').length, 1);
    assert.match(result.stderr, /PostgreSQL at 127\.0\.0\.1:1/);
    assert.ok(Date.now() - started < 10_000);
  });

  it('an unwritable SQLite path: one line, exit 2', async () => {
    const result = await runCli(['migrate', '--database', 'sqlite:/etc/hostname/x.db']);
    assert.equal(result.code, 2);
    assert.equal(result.stderr.trim().split('\n').length, 1);
  });
});

describe('serve', { concurrency: 4 }, () => {
  it('bootstraps a key on an empty database only, serves /v1, logs JSON lines without the token, stops on SIGINT', async () => {
    const database = db('serve');
    const first = await startServe(['--database', database]);
    const banner = first.lines.find((line) => /mapi_/.test(line));
    assert.ok(banner, 'the first start prints a key');
    const token = /(mapi_[A-Za-z0-9_-]{43})/.exec(banner!)![1]!;
    assert.match(first.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const answer = await me(first.url, token);
    assert.equal(answer.status, 200);
    assert.equal((await answer.json()).data.key_id, 1);
    const outside = await fetch(first.url.replace(/\/v1$/, '/status'));
    assert.equal(outside.status, 404);
    assert.equal((await outside.json()).error.code, 'unknown_route');
    const logged = await first.waitForLine(/"path":"\/status"/);
    const entry = JSON.parse(logged);
    assert.equal(entry.status, 404);
    const meLine = JSON.parse(first.lines.find((line) => line.includes('"path":"/v1/me"'))!);
    assert.deepEqual(Object.keys(meLine).sort(), ['client_ip', 'duration_ms', 'key_id', 'method', 'path', 'request_id', 'status', 'time']);
    assert.ok(!first.lines.slice(first.lines.indexOf(banner!) + 1).some((line) => line.includes(token)), 'the token is printed once');
    first.child.kill('SIGINT');
    assert.equal(await first.exited, 0);

    const second = await startServe(['--database', database]);
    assert.ok(!second.lines.some((line) => /mapi_/.test(line)), 'no second bootstrap key');
    assert.equal((await me(second.url, token)).status, 200);
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  });

  it('SIGTERM lets a request in flight finish, then exits 0', async () => {
    const server = await startServe(['--database', db('drain')]);
    const token = /(mapi_[A-Za-z0-9_-]{43})/.exec(server.lines.join('\n'))![1]!;
    const url = new URL(`${server.url}/devices/create`);
    const body = JSON.stringify({ target_type: 'domain', target_value: 'drain.example.com' });
    // Send the headers and half the body, signal, then the rest: the request is in flight meanwhile.
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk)).on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 300);
    });
    const { status, text } = await answer;
    assert.equal(status, 201, text);
    assert.equal(await server.exited, 0);
  });

  it('a key revoked with the CLI before its first use is refused at once', async () => {
    const database = db('revoked');
    const server = await startServe(['--database', database]);
    const key = JSON.parse((await runCli(['keys', 'create', '--user', '1', '--json', '--database', database])).stdout);
    assert.equal((await runCli(['keys', 'revoke', String(key.key_id), '--database', database])).code, 0);
    const answer = await me(server.url, key.token);
    assert.equal(answer.status, 401);
    assert.equal((await answer.json()).error.code, 'invalid_api_key');
    server.child.kill('SIGTERM');
    await server.exited;
  });

  it('serves PostgreSQL too', async (t) => {
    const pg = await createTestDatabase();
    if (pg.skip !== undefined) return t.skip(pg.skip);
    try {
      const user = JSON.parse((await runCli(['users', 'create', '--json', '--database', pg.url])).stdout);
      const key = JSON.parse((await runCli(['keys', 'create', '--user', String(user.user_id), '--json', '--database', pg.url])).stdout);
      const server = await startServe(['--database', pg.url]);
      assert.ok(!server.lines.some((line) => /mapi_/.test(line)), 'a database with users gets no bootstrap key');
      assert.equal((await me(server.url, key.token)).status, 200);
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);
    } finally {
      await pg.drop();
    }
  });
});
