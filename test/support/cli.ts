import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after } from 'node:test';
import { CLI_ARGS, ROOT } from './built-cli.ts';
import { HANG_GUARD_MS } from './hang-guard.ts';

export { CLI_ARGS, ROOT };

/** What the CLI reads from the environment: a developer's own settings must not leak into tests. */
const CLI_VARIABLES = ['DATABASE_URL', 'HOST', 'PORT', 'RATE_LIMIT_STORE', 'RATE_LIMIT_FAIL'];

function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = { ...process.env };
  for (const name of CLI_VARIABLES) delete inherited[name];
  return { ...inherited, ...env };
}

const running = new Set<ChildProcessWithoutNullStreams>();
// A test that fails half-way must not leave a server behind, nor hang its file: the child's
// pipes would keep this process alive, so 'exit' alone would never come.
const killAll = () => {
  for (const child of running) child.kill('SIGKILL');
};
after(killAll);
process.once('exit', killAll);

function track(child: ChildProcessWithoutNullStreams): ChildProcessWithoutNullStreams {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** From spawning to the process's end. */
  ms: number;
}

/**
 * Runs `monitoring-api ARGS` to completion (the built binary when fresh: see built-cli.ts).
 * With `killAfterMs`, a process still running then is killed (its code is then null).
 */
export function runCli(args: string[], env: Record<string, string> = {}, killAfterMs?: number): Promise<CliResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = track(spawn(process.execPath, [...CLI_ARGS, ...args], { cwd: ROOT, env: childEnv(env) }));
    if (killAfterMs !== undefined) {
      const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      child.once('exit', () => clearTimeout(timer));
    }
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
  });
}

/** Runs a command that must succeed and print one JSON object; returns it parsed. */
export async function runCliJson<T = Record<string, unknown>>(
  args: string[],
  env: Record<string, string> = {},
): Promise<T> {
  const result = await runCli([...args, '--json'], env);
  if (result.code !== 0) throw new Error(`monitoring-api ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
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

const TOKEN = /(mapi_[A-Za-z0-9_-]{43})/;

/** The bootstrap token a first start printed, or undefined when it printed none. */
export function bootstrapToken(server: ServerProcess): string | undefined {
  for (const line of server.lines) {
    const token = TOKEN.exec(line)?.[1];
    if (token !== undefined) return token;
  }
  return undefined;
}

/** Starts `monitoring-api serve ARGS` (on a port the system picks) and resolves once it is listening. */
export async function startServe(args: string[], env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = track(
    spawn(process.execPath, [...CLI_ARGS, 'serve', '--port', '0', ...args], { cwd: ROOT, env: childEnv(env) }),
  );
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      for (const wake of waiters.splice(0)) wake();
      resolve(code);
    }),
  );
  const waitForLine = async (pattern: RegExp): Promise<string> => {
    const deadline = Date.now() + HANG_GUARD_MS;
    for (;;) {
      const found = lines.find((line) => pattern.test(line));
      if (found !== undefined) return found;
      if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}) before ${pattern}: ${stderr}`);
      if (Date.now() > deadline) throw new Error(`no line matching ${pattern} within ${HANG_GUARD_MS} ms: ${stderr}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  };
  const listening = await waitForLine(/^listening on /);
  return { child, url: listening.slice('listening on '.length), lines, stderr: () => stderr, exited, waitForLine };
}

/** Sends a signal and waits for the exit code. */
export async function stopServe(server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill(signal);
  return server.exited;
}

/** GET /me with a token: the cheapest request that proves a key works. */
export function getMe(url: string, token: string): Promise<Response> {
  return fetch(`${url}/me`, { headers: { authorization: `Bearer ${token}` } });
}

/**
 * The engine flags of a worker that asks only `dnsServer` (a fake DNS server's `host:port`), about
 * one IP zone and one domain zone.
 */
export function dnsblFlags(dnsServer: string): string[] {
  return ['--dns-server', dnsServer, '--dnsbl-zone', 'zen.spamhaus.org', '--dnsbl-domain-zone', 'dbl.spamhaus.org'];
}
