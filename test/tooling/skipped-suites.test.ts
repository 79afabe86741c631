/**
 * Nothing is skipped silently: a suite that cannot run for a missing service is counted in the
 * runner's closing summary with its reason, and under CI=true the missing service is a failure.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../support/built-cli.ts';
import { nodeArgs } from '../support/node-args.ts';

function runTests(file: string, env: Record<string, string>): { status: number | null; output: string } {
  // The child is a runner of its own, not a file of this run (which NODE_TEST_CONTEXT would say).
  const { NODE_TEST_CONTEXT: _parent, ...inherited } = process.env;
  const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...nodeArgs(file)], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...inherited, ...env },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('skipped suites', () => {
  it('a suite skipped for a missing service is counted in the closing summary, with its reason', () => {
    const { status, output } = runTests(join('test', 'tooling', 'skipped-suite.ts'), {
      FIXTURE_SKIP: 'the service is not reachable',
    });
    assert.equal(status, 0, output);
    assert.match(output, /# the service is not reachable/);
    assert.match(output, /skipped 1\n/, output);
    const ran = runTests(join('test', 'tooling', 'skipped-suite.ts'), {});
    assert.match(ran.output, /pass 1\n/);
    assert.match(ran.output, /skipped 0\n/);
  });

  it('under CI=true a missing Redis fails its suites instead of skipping them', () => {
    const { status, output } = runTests(join('test', 'rate-limits', 'redis-rate-limiter.test.ts'), {
      CI: 'true',
      TEST_REDIS_URL: 'redis://127.0.0.1:1',
    });
    assert.notEqual(status, 0, output);
    assert.match(output, /CI=true: Redis tests must run/);
  });

  it('under CI=true a missing PostgreSQL fails its suites instead of skipping them', () => {
    const { status, output } = runTests(join('test', 'cli', 'postgres.test.ts'), {
      CI: 'true',
      TEST_POSTGRES_URL: 'postgres://postgres@127.0.0.1:1/test',
    });
    assert.notEqual(status, 0, output);
    assert.match(output, /PostgreSQL not reachable/);
  });
});
