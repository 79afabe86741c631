import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { freePort } from './ports.ts';
import { HANG_GUARD_MS } from './hang-guard.ts';

/**
 * A redis-server of the test's own, on a free loopback port, that the test can freeze (SIGSTOP:
 * the socket stays open and nothing answers, as a Redis stuck in a long command or a stopped VM)
 * and thaw. The machine's shared Redis cannot be frozen without stalling every other test run.
 */
export interface PrivateRedis {
  url: string;
  freeze(): void;
  thaw(): void;
  stop(): Promise<void>;
}

const BINARY = process.env.TEST_REDIS_SERVER ?? 'redis-server';

/**
 * Why a private Redis cannot be started here, or undefined when it can. Under CI=true a missing
 * binary is a failure, never a skip.
 */
export function privateRedisSkipReason(): string | undefined {
  const probe = spawnSync(BINARY, ['--version'], { encoding: 'utf8' });
  if (probe.error === undefined && probe.status === 0) return undefined;
  const reason = `${BINARY} not runnable: ${probe.error?.message ?? probe.stderr.trim()}`;
  if (process.env.CI === 'true') throw new Error(`${reason} (CI=true: Redis tests must run)`);
  return reason;
}

const started = new Set<ChildProcess>();
// A test that fails half-way must not leave a stopped redis-server behind.
const killAll = () => {
  for (const child of started) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
};
after(killAll);
process.once('exit', killAll);

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'monitoring-api-redis-'));
  const port = await freePort();
  const child = spawn(
    BINARY,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  started.add(child);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    // Generous: only a redis-server that never starts waits it out.
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), HANG_GUARD_MS);
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (/Ready to accept connections/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}): ${output}`));
    });
  });
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    url: `redis://127.0.0.1:${port}`,
    freeze: () => void child.kill('SIGSTOP'),
    thaw: () => void child.kill('SIGCONT'),
    async stop() {
      child.kill('SIGCONT');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      started.delete(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
