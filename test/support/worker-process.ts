/**
 * `monitoring-api worker` as a real process (the built CLI when fresh: see built-cli.ts), with
 * what it printed kept line by line: the multi-worker suites count its log lines, kill it with
 * SIGKILL mid-batch, or stop it with SIGTERM and wait for its exit code.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { CLI_ARGS, ROOT } from './built-cli.ts';
import { HANG_GUARD_MS } from './hang-guard.ts';

export interface WorkerProcess {
  child: ChildProcessWithoutNullStreams;
  /** Every stdout line so far: the banner and the `info` log (JSON lines). */
  stdout: string[];
  /** Every stderr line so far: the `warn` and `error` log (JSON lines). */
  stderr: string[];
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Records claimed so far, from the `claimed N due <kind> checks` log lines (`--log-level debug`). */
  claimed(kind: 'blacklist_monitor' | 'device' | 'heartbeat'): number;
}

const running = new Set<ChildProcessWithoutNullStreams>();
// A failed test must not leave workers behind: they would keep claiming from the next test's
// database's server, and their pipes would keep this file from ending.
after(() => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * How long a worker may take to say it is checking: loading the CLI, connecting to PostgreSQL and
 * checking its migrations, beside other test files' processes, however busy the machine. The hang
 * guard: only a worker that never starts waits it out.
 */
const START_MS = HANG_GUARD_MS;

/** Starts a worker and resolves once it says it is checking. */
export async function startWorker(args: readonly string[]): Promise<WorkerProcess> {
  // DATABASE_URL emptied: a developer's own must never be what a test worker claims from.
  const child = spawn(process.execPath, [...CLI_ARGS, 'worker', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: '' },
  });
  running.add(child);
  const stdout: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => stdout.push(line));
  createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const deadline = Date.now() + START_MS;
  while (!stdout.some((line) => /^monitoring-api: worker \S+ checking/.test(line))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`the worker did not start: ${stderr.join('\n')}`);
    }
    await delay(25);
  }
  const claimed = (kind: string) =>
    stdout
      .map((line) =>
        line.startsWith('{') ? (JSON.parse(line) as { message?: string; kind?: string; claimed?: number }) : {},
      )
      .filter(
        (entry) =>
          entry.kind === kind && typeof entry.claimed === 'number' && /^claimed \d+ due/.test(entry.message ?? ''),
      )
      .reduce((sum, entry) => sum + entry.claimed!, 0);
  return { child, stdout, stderr, exited, claimed };
}
