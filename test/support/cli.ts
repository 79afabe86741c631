import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = ['--import', 'tsx', 'cli/main.ts'];

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `monitoring-api ARGS` to completion (from the sources, as the built binary would run). */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface ServerProcess {
  child: ChildProcessWithoutNullStreams;
  /** The API's base URL from the `listening on` line. */
  url: string;
  /** Every stdout line so far (banner, listening line, request log). */
  lines: string[];
  stderr: () => string;
  /** Resolves with the exit code once the process ends. */
  exited: Promise<number | null>;
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

/** Starts `monitoring-api serve ARGS` and resolves once it is listening. */
export async function startServe(args: string[], env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...CLI, 'serve', '--port', '0', ...args], { cwd: ROOT, env: { ...process.env, ...env } });
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => {
    for (const wake of waiters.splice(0)) wake();
    resolve(code);
  }));
  const waitForLine = async (pattern: RegExp, timeoutMs = 15_000): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = lines.find((line) => pattern.test(line));
      if (found !== undefined) return found;
      if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}) before ${pattern}: ${stderr}`);
      if (Date.now() > deadline) throw new Error(`no line matching ${pattern} within ${timeoutMs} ms: ${stderr}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  };
  const listening = await waitForLine(/^listening on /);
  return { child, url: listening.slice('listening on '.length), lines, stderr: () => stderr, exited, waitForLine };
}
