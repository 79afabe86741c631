/**
 * The client is portable: Bun and Deno run it against the real standalone server. That its source
 * imports nothing at run time but its own files (types from the core are erased) and uses no Node
 * global, so bundlers for browsers have nothing Node-specific to resolve, is a lint rule
 * (layout/imports and no-restricted-globals in eslint.config.js, tested in test/lint).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { ROOT, startServer, type StandaloneServer } from './standalone-server.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';

const run = promisify(execFile);
const BIN = join(ROOT, 'node_modules', '.bin');

describe('the client in other runtimes', { concurrency: 1 }, () => {
  let server: StandaloneServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server?.stop();
  });

  const runtimes: [string, string, string[]][] = [
    ['Bun', join(BIN, 'bun'), ['test/client/runtime-smoke.ts']],
    [
      'Deno',
      join(BIN, 'deno'),
      ['run', '--no-check', '--no-prompt', '--allow-net=127.0.0.1', 'test/client/runtime-smoke.ts'],
    ],
  ];
  for (const [name, command, args] of runtimes) {
    test(`${name}: me, create, typed 409, all() through pages, delete`, async () => {
      const { stdout } = await run(command, [...args, server.baseUrl, server.bootstrapToken], {
        cwd: ROOT,
        // Only a guard against a runtime that hangs, never a bound on speed.
        timeout: HANG_GUARD_MS,
        env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
      });
      const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
        userId: number;
        created: number;
        duplicateOf: number;
        listed: boolean;
        deleted: boolean;
      };
      assert.equal(typeof result.userId, 'number');
      assert.equal(result.duplicateOf, result.created);
      assert.equal(result.listed, true);
      assert.equal(result.deleted, true);
    });
  }
});
