/**
 * The Store contract on SQLite inside Bun and Deno, through the driver `openKyselyStore` picks
 * there (bun:sqlite, node:sqlite via stores/kysely/drivers/sqlite-node.ts), by each runtime's own test
 * runner. Deno runs without --allow-ffi: nothing native is loaded.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ROOT } from './harness.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';

const run = promisify(execFile);
const FIXTURE = join('test', 'adapters', 'sqlite-store-contract.ts');
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);

async function runTests(command: string, args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
      // Only a guard against a runtime that hangs, never a bound on speed: the run takes seconds
      // alone and many times that beside the rest of the suite on a busy machine.
      timeout: HANG_GUARD_MS,
    });
    return `${stdout}${stderr}`;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    assert.fail(`${command} ${args.join(' ')} failed:\n${stdout}${stderr}`);
  }
}

describe('the SQLite store in the other runtimes', { concurrency: true }, () => {
  it('meets the Store contract on bun:sqlite (bun test)', async () => {
    // bun test gives each test 5 s by default: a bound on speed that a busy machine breaks.
    const output = await runTests(bin('bun'), ['test', '--timeout', String(HANG_GUARD_MS), `./${FIXTURE}`]);
    assert.match(output, /\(Bun\) meets the Store contract/);
    assert.match(output, /\n\s*0 fail/);
  });

  it('meets the Store contract on node:sqlite (deno test)', async () => {
    const output = await runTests(bin('deno'), [
      'test',
      '--no-check',
      '--allow-env',
      '--allow-read',
      '--allow-write',
      FIXTURE,
    ]);
    assert.match(output, /\(Deno\) meets the Store contract/);
    assert.match(output, /\| 0 failed/);
  });
});
