/**
 * docs/heartbeats.md, "Moving from Healthchecks": a job that pings Healthchecks switches by changing
 * its base URL. The curl lines Healthchecks documents for cron jobs, and a runitor-style wrapper
 * (a start with a run id, then the command's exit status with its output as the body), run as
 * real curl processes against the API on node:http on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync, mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createNodeHandler } from '../../adapters/node/index.ts';
import type { Heartbeat, HeartbeatPing } from '../../core/index.ts';
import { createTestApi } from '../../core/testing/index.ts';

const run = promisify(execFile);
const t = createTestApi();
let server: Server;
let origin = '';
const dir = mkdtempSync(join(tmpdir(), 'heartbeat-compat-'));

before(async () => {
  server = createServer(createNodeHandler(t.api));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A new heartbeat, and its ping URL on this server as Healthchecks' `https://hc-ping.com/<uuid>` would be. */
async function heartbeat() {
  const key = await t.createKey();
  const created = await t.request<Heartbeat>('/v1/heartbeats/create', {
    method: 'POST',
    key,
    body: { period_s: 86_400 },
  });
  const hb = created.body.data!;
  const url = `${origin}${new URL(hb.ping_url!).pathname}`;
  const state = async () => (await t.request<Heartbeat>(`/v1/heartbeats/get?id=${hb.id}`, { key })).body.data!;
  const pings = async () =>
    (await t.request<HeartbeatPing[]>(`/v1/heartbeats/results?id=${hb.id}`, { key })).body.data!;
  return { url, state, pings };
}

/**
 * A line of shell, as a crontab runs it, a minute after the last on the API's clock (a job pings
 * far less than the 5 a second a token may).
 */
const sh = (line: string) => {
  t.clock.advance(60_000);
  return run('sh', ['-c', line], { encoding: 'utf8' });
};

describe('Healthchecks clients, with only their base URL changed', () => {
  it("the documented curl lines: success, start, fail, exit status, a log's body and a run id", async () => {
    const { url, state, pings } = await heartbeat();
    await sh(`curl -fsS -m 10 --retry 5 -o /dev/null ${url}/start`);
    assert.equal((await state()).status, 'started');
    await sh(`curl -fsS -m 10 --retry 5 -o /dev/null ${url}`);
    assert.equal((await state()).status, 'up');
    await sh(`m=$(printf 'rsync: 3 files'); curl -fsS -m 10 --retry 5 --data-raw "$m" ${url}`);
    writeFileSync(join(dir, 'report.txt'), 'line one\nline two\n');
    await sh(`curl -fsS -m 10 --retry 5 --data-binary @${join(dir, 'report.txt')} ${url}/log`);
    await sh(`false; curl -fsS -m 10 --retry 5 -o /dev/null ${url}/$?`);
    assert.equal((await state()).status, 'down');
    await sh(`curl -fsS -m 10 --retry 5 -o /dev/null ${url}/fail`);
    await sh(
      `RID=$(cat /proc/sys/kernel/random/uuid); curl -fsS -m 10 --retry 5 -o /dev/null "${url}/start?rid=$RID" && curl -fsS -m 10 --retry 5 -o /dev/null "${url}?rid=$RID"`,
    );
    assert.equal((await state()).status, 'up');
    const head = await sh(`curl -fsS -m 10 --retry 5 -I ${url}`);
    assert.match(head.stdout, /^HTTP\/1\.1 200 OK\r$/m);
    assert.match(head.stdout, /^ping-body-limit: 10000\r$/im);
    const kinds = (await pings()).map((p) => [p.kind, p.exit_status, p.body]);
    assert.deepEqual(kinds, [
      ['success', null, null],
      ['success', null, null],
      ['start', null, null],
      ['fail', null, null],
      ['exit', 1, null],
      ['log', null, 'line one\nline two\n'],
      ['success', null, 'rsync: 3 files'],
      ['success', null, null],
      ['start', null, null],
    ]);
    const unknown = await sh(
      `curl -fsS -m 10 --retry 5 -o /dev/null ${origin}/ping/11111111-2222-4333-8444-555555555555 || echo "exit $?"`,
    );
    assert.match(unknown.stdout, /^exit 22$/m, 'curl -f fails on the 404 of a token that is not one');
  });

  it('a runitor-style wrapper: start with a run id, then the exit status with the output as the body', async () => {
    const wrapper = join(dir, 'wrap.sh');
    writeFileSync(
      wrapper,
      [
        '#!/bin/sh',
        '# wrap.sh PING_URL COMMAND: what runitor does around a job.',
        'RID=$(cat /proc/sys/kernel/random/uuid)',
        'curl -fsS -m 10 --retry 5 -o /dev/null "$1/start?rid=$RID"',
        'OUTPUT=$(sh -c "$2" 2>&1)',
        'STATUS=$?',
        'curl -fsS -m 10 --retry 5 -o /dev/null --data-binary "$OUTPUT" "$1/$STATUS?rid=$RID"',
        '',
      ].join('\n'),
    );
    chmodSync(wrapper, 0o755);
    const { url, state, pings } = await heartbeat();
    await run(wrapper, [url, 'echo backing up; echo 12 files']);
    assert.equal((await state()).status, 'up');
    await run(wrapper, [url, 'echo disk full >&2; exit 3']);
    const hb = await state();
    assert.equal(hb.status, 'down');
    const [failed, , succeeded, started] = await pings();
    assert.deepEqual([failed!.kind, failed!.exit_status, failed!.body], ['exit', 3, 'disk full']);
    assert.deepEqual([succeeded!.kind, succeeded!.exit_status, succeeded!.body], ['exit', 0, 'backing up\n12 files']);
    assert.equal(succeeded!.rid, started!.rid);
    assert.match(started!.rid!, /^[0-9a-f-]{36}$/);
    assert.equal(succeeded!.duration_ms, 0, 'measured from its start, by the clock of the API (still here)');
  });
});
