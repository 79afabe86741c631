/**
 * Runs the examples in their real runtimes (Node, Bun, Deno) as child processes, exactly as
 * their `npm run example:<name>` scripts start them, over a SQLite file this process prepared.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KeyAdmin } from '../../core/index.ts';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { ROOT } from '../support/built-cli.ts';
import { nodeArgs } from '../support/node-args.ts';
import { runCommandJson } from '../support/run-command.ts';

export { ROOT };
export const EXAMPLES = ['node', 'express', 'bun', 'deno'] as const;
export type ExampleName = (typeof EXAMPLES)[number];

/** Tokens of keys of one user: read+write from anywhere, 127.0.0.1 only, 10.0.0.0/8 only, read only. */
export interface Keys {
  readWrite: string;
  loopback: string;
  tenNet: string;
  readOnly: string;
}

export interface TestDatabase {
  url: string;
  keys: Keys;
  remove(): Promise<void>;
}

/**
 * Migrates the database `url` names and gives it a user and that user's keys, through the library
 * (what the CLI's `users create` / `keys create` do), closing it again before any server opens it.
 */
export async function seedDatabase(url: string): Promise<Keys> {
  const { store, db } = await openKyselyStore(url);
  try {
    await migrateToLatest(db);
    const admin = new KeyAdmin(store);
    const { id: userId } = await admin.createUser({ name: 'examples' });
    const token = async (input: { allowedIps?: string[]; scopes?: ('read' | 'write')[] } = {}) =>
      (await admin.createApiKey({ userId, ...input })).token;
    return {
      readWrite: await token(),
      loopback: await token({ allowedIps: ['127.0.0.1'] }),
      tenNet: await token({ allowedIps: ['10.0.0.0/8'] }),
      readOnly: await token({ scopes: ['read'] }),
    };
  } finally {
    await store.close();
  }
}

/** A seeded SQLite file in a temporary folder of its own. */
export async function createDatabase(): Promise<TestDatabase> {
  const dir = await mkdtemp(join(tmpdir(), 'monitoring-examples-'));
  const url = `sqlite:${join(dir, 'monitoring.db')}`;
  return { url, keys: await seedDatabase(url), remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * A SQLite file made the way an operator makes it: `users create`, then `keys create`, by the CLI's commands (run in
 * this process).
 */
export async function createDatabaseWithCli(): Promise<{ url: string; token: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'monitoring-examples-cli-'));
  const url = `sqlite:${join(dir, 'monitoring.db')}`;
  const cli = <T>(...args: string[]): Promise<T> => runCommandJson<T>([...args, '--database', url]);
  const { user_id: userId } = await cli<{ user_id: number }>('users', 'create', '--name', 'examples');
  const { token } = await cli<{ token: string }>('keys', 'create', '--user', String(userId), '--scopes', 'read,write');
  return { url, token, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface RunningExample {
  name: string;
  /** The API's base URL, as the example printed it: `http://127.0.0.1:<port>/v1`. */
  base: string;
  /** Scheme, host and port. */
  origin: string;
  /** Sends SIGTERM and waits for the exit (at most `timeoutMs`, then SIGKILL and a rejection). */
  stop(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything the process wrote so far, for failure messages. */
  output(): string;
}

const BIN = join(ROOT, 'node_modules', '.bin');
const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
  .scripts;

/** The words of `npm run example:<name>`, run without npm so that signals reach the runtime itself. */
export function exampleCommand(name: ExampleName): [string, string[]] {
  const script = scripts[`example:${name}`];
  if (script === undefined) throw new Error(`package.json has no script example:${name}`);
  const [command, ...args] = script.split(' ');
  // npm puts node_modules/.bin first on PATH (bun, deno); `node` is this very Node.
  return [command === 'node' ? process.execPath : command!, args];
}

const running = new Set<ChildProcess>();
// A test that fails half-way must not leave servers behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export function startExample(
  name: ExampleName,
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<RunningExample> {
  return startServer(name, exampleCommand(name), databaseUrl, env);
}

/**
 * The same example, from the same source, where its script's words are not what a test is about:
 * a Node example is started by this Node directly (node-args.ts), Bun and Deno by their script's
 * words. Each example's own suite starts it by its script, so those words are still run.
 */
export function startExampleSource(
  name: ExampleName,
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<RunningExample> {
  const [command, args] = exampleCommand(name);
  const source = args.find((arg) => arg.endsWith('.ts'));
  if (command !== process.execPath || source === undefined) return startExample(name, databaseUrl, env);
  return startServer(name, [process.execPath, nodeArgs(source)], databaseUrl, env);
}

/** A host program beside this file (express4-server.ts), run by this Node (node-args.ts). */
export function startFixture(
  file: string,
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<RunningExample> {
  return startServer(file, [process.execPath, nodeArgs(join('test', 'adapters', file))], databaseUrl, env);
}

/** Starts `command` with PORT=0 and waits for its "listening on <base URL>" line. */
export async function startServer(
  name: string,
  [command, args]: [string, string[]],
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<RunningExample> {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      PATH: `${BIN}${delimiter}${process.env.PATH ?? ''}`,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      NO_COLOR: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });

  const base = await new Promise<string>((resolve, reject) => {
    let settled = false;
    // A cold start of Bun or Deno beside other test files' processes; only a failed start waits it out.
    const timer = setTimeout(
      () => fail(new Error(`${name} printed no "listening on" line in 60 s:\n${output}`)),
      60_000,
    );
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match === null || settled) return;
      settled = true;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      resolve(match[1]!);
    };
    child.stdout!.on('data', check);
    void exited.then(({ code, signal }) =>
      fail(new Error(`${name} exited (${code ?? signal}) before listening:\n${output}`)),
    );
  });

  return {
    name,
    base,
    origin: new URL(base).origin,
    output: () => output,
    async stop(timeoutMs = 60_000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`${name} did not exit within ${timeoutMs} ms of SIGTERM:\n${output}`));
        }, timeoutMs);
      });
      try {
        return await Promise.race([exited, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
