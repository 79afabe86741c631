/**
 * The four examples (node:http, Express, Bun, Deno) serving ONE SQLite file at the same time,
 * each through its own runtime's driver (node:sqlite on Node and Deno, bun:sqlite on Bun): what one
 * writes, the others read, and the file stays consistent under WAL and the busy timeout. The
 * file is made by the CLI, as an operator would make it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createDatabaseWithCli,
  EXAMPLES,
  startExampleSource,
  type ExampleName,
  type RunningExample,
} from './harness.ts';
import { call } from './suite.ts';

describe('the four examples over one SQLite file', () => {
  let database: Awaited<ReturnType<typeof createDatabaseWithCli>> | undefined;
  const servers = new Map<ExampleName, RunningExample>();
  const server = (name: ExampleName): RunningExample => {
    const running = servers.get(name);
    assert.ok(running, `the ${name} example did not start`);
    return running;
  };
  const key = () => {
    assert.ok(database);
    return database.token;
  };
  const listed = async (name: ExampleName): Promise<string[]> => {
    const list = await call(`${server(name).base}/devices`, { key: key() });
    assert.equal(list.status, 200, list.text);
    return (list.json.data as { target_value: string }[]).map((d) => d.target_value);
  };

  before(async () => {
    database = await createDatabaseWithCli();
    const url = database.url;
    // All at once: four processes open (and migrate, a no-op here) the same file together. Each
    // example's own suite runs its npm script; here the Node ones run compiled (harness.ts).
    await Promise.all(EXAMPLES.map(async (name) => servers.set(name, await startExampleSource(name, url))));
  });
  after(async () => {
    await Promise.all([...servers.values()].map((running) => running.stop().catch(() => undefined)));
    await database?.remove();
  });

  it('shows every example the devices each one created, in one id order', async () => {
    // Concurrent writes from the four runtimes: each waits its turn for the write lock.
    const created = await Promise.all(
      EXAMPLES.map(async (name) => {
        const res = await call(`${server(name).base}/devices/create`, {
          key: key(),
          body: { target_type: 'domain', target_value: `shared-${name}.example.com` },
        });
        assert.equal(res.status, 201, `${name}: ${res.text}`);
        return res.json.data as { id: number; target_value: string };
      }),
    );
    const expected = created.sort((a, b) => a.id - b.id).map((d) => d.target_value);
    for (const name of EXAMPLES) assert.deepEqual(await listed(name), expected, `as listed by ${name}`);
  });

  it('sees a duplicate made through another runtime, and a delete made through another', async () => {
    const duplicate = await call(`${server('deno').base}/devices/create`, {
      key: key(),
      body: { target_type: 'domain', target_value: 'shared-bun.example.com' },
    });
    assert.equal(duplicate.status, 409, duplicate.text);
    const existing = duplicate.json.error as { code: string; existing_id: number };
    assert.equal(existing.code, 'duplicate_device');

    const deleted = await call(`${server('express').base}/devices/delete?id=${existing.existing_id}`, {
      key: key(),
      method: 'DELETE',
    });
    assert.equal(deleted.status, 200, deleted.text);
    for (const name of EXAMPLES) assert.ok(!(await listed(name)).includes('shared-bun.example.com'), name);
  });

  it('gives fifty concurrent PATCHes of one device through the four runtimes each a 200, the device one set whole', async () => {
    const created = await call(`${server('node').base}/devices/create`, {
      key: key(),
      body: { target_type: 'domain', target_value: 'patched.example.com' },
    });
    assert.equal(created.status, 201, created.text);
    const { id } = created.json.data as { id: number };
    // Each a whole set of its own; every runtime's changes wait their turn for the write lock.
    const setOf = (i: number) => ({
      target_value: `patched-${i}.example.com`,
      port: 1000 + i,
      location: `set ${i}`,
      check_interval_s: 60 + i,
      is_enabled: i % 2 === 0,
    });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(`${server(EXAMPLES[i % EXAMPLES.length]!).base}/devices/update?id=${id}`, {
          key: key(),
          method: 'PATCH',
          body: setOf(i),
        }),
      ),
    );
    const failed = answers.filter((answer) => answer.status !== 200);
    assert.equal(failed.length, 0, `${failed.length} of 50 failed, the first: ${failed[0]?.text}`);
    const pick = (record: unknown, i: number) =>
      Object.fromEntries(Object.keys(setOf(i)).map((name) => [name, (record as Record<string, unknown>)[name]]));
    answers.forEach((answer, i) => assert.deepEqual(pick(answer.json.data, i), setOf(i), `PATCH ${i}`));
    const stored = await call(`${server('bun').base}/devices/get?id=${id}`, { key: key() });
    assert.equal(stored.status, 200, stored.text);
    const i = Number((stored.json.data as { location: string }).location.slice('set '.length));
    assert.deepEqual(pick(stored.json.data, i), setOf(i), stored.text);
  });

  it('stops all four cleanly', async () => {
    const exits = await Promise.all(EXAMPLES.map(async (name) => [name, await server(name).stop()] as const));
    for (const [name, exit] of exits)
      assert.deepEqual(exit, { code: 0, signal: null }, `${name}: ${server(name).output()}`);
  });
});
