/**
 * `monitoring-api ARGS` run in this process: the CLI's own command code (cli/run.ts,
 * runCommandLine, the function the binary's main.ts calls), with stdout, stderr and the
 * environment of its own, so calls side by side neither mix their output nor see the variables
 * of this process. Half a second of process start saved per call, nearly all of it Node loading
 * kysely again. What only a process shows (the binary's exit, signals, EPIPE, `serve` and `worker`
 * running on) stays with runCli and startServe (cli.ts).
 */
import type { CliResult } from './cli.ts';

/**
 * The command lines of this process run one after another. As processes, two commands on one
 * SQLite file wait for each other's lock; in one thread, a synchronous SQLite driver (node:sqlite) waits for
 * a lock by blocking the thread, so the command holding it could never finish and the waiter would fail
 * with "database is locked".
 */
let queue: Promise<unknown> = Promise.resolve();

/** Runs a command line to its end; `env` is all the environment the command sees. */
export function runCommand(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  const result = queue.then(() => runNow(args, env));
  queue = result.catch(() => undefined);
  return result;
}

async function runNow(args: readonly string[], env: Record<string, string>): Promise<CliResult> {
  const { runCommandLine } = await import('../../cli/run.ts');
  const started = Date.now();
  let stdout = '';
  let stderr = '';
  const { code } = await runCommandLine(args, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    env,
  });
  // serve and worker that started would keep running, signal handlers and all, inside the test.
  if (code < 0) throw new Error(`monitoring-api ${args.join(' ')} runs on: start it with startServe or startWorker`);
  return { code, stdout, stderr, ms: Date.now() - started };
}

/** Runs a command that must succeed and print one JSON object; returns it parsed. */
export async function runCommandJson<T = Record<string, unknown>>(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<T> {
  const result = await runCommand([...args, '--json'], env);
  if (result.code !== 0) throw new Error(`monitoring-api ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}
