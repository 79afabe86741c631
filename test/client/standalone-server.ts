/**
 * The real standalone server for client tests: `monitoring-api serve` (see built-cli.ts) on a free
 * loopback port over a temporary SQLite file, and keys made with the CLI's own `users create` and
 * `keys create`, run in this process (runCommand). Nothing mocked.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_ARGS, ROOT } from '../support/built-cli.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';
import { runCommandJson } from '../support/run-command.ts';

export { ROOT };

export interface StandaloneServer {
  /** `http://127.0.0.1:PORT/v1`, as the server printed it. */
  baseUrl: string;
  /** The bootstrap read+write key printed on the first start. */
  bootstrapToken: string;
  database: string;
  /** A new key of a new user, made with `monitoring-api users create` and `keys create`. */
  createKey(options?: {
    scopes?: string;
    userId?: number;
    rateLimit?: string;
  }): Promise<{ token: string; userId: number }>;
  /** Everything the server printed so far. */
  output(): string;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
// A test that fails half-way must not leave a server behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function startServer(extraArgs: string[] = []): Promise<StandaloneServer> {
  const dir = await mkdtemp(join(tmpdir(), 'monitoring-api-client-'));
  const database = `sqlite:${join(dir, 'monitoring.db')}`;
  const child: ChildProcess = spawn(
    process.execPath,
    [...CLI_ARGS, 'serve', '--host', '127.0.0.1', '--port', '0', '--database', database, ...extraArgs],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));

  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the server did not start within ${HANG_GUARD_MS} ms:\n${output}`)),
      HANG_GUARD_MS,
    );
    const check = () => {
      const match = output.match(/listening on (http:\/\/\S+\/v1)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code} before listening:\n${output}`));
    });
  });
  const token = output.match(/\b(mapi_[A-Za-z0-9_-]{16,})/)?.[1];
  if (token === undefined) throw new Error(`no bootstrap token in the server's output:\n${output}`);

  return {
    baseUrl,
    bootstrapToken: token,
    database,
    output: () => output,
    async createKey(options = {}) {
      const userId =
        options.userId ??
        (await runCommandJson<{ user_id: number }>(['users', 'create', '--database', database])).user_id;
      const args = ['keys', 'create', '--database', database, '--user', String(userId)];
      if (options.scopes !== undefined) args.push('--scopes', options.scopes);
      if (options.rateLimit !== undefined) args.push('--rate-limit', options.rateLimit);
      const key = await runCommandJson<{ token: string }>(args);
      return { token: key.token, userId };
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
