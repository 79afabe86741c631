import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeArgs } from '../test/support/node-args.ts';

export interface RunningServer {
  /** The API's base URL, as the server printed it (`listening on <url>`). */
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Ends `child` with SIGTERM, resolving once it has exited (at once if it already has). */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

/**
 * Starts a server process and resolves once it prints `listening on <url>`. Its stdout goes to a
 * file in `logDir`, not through a pipe: the API logs a line per request, and reading those in
 * this process would take CPU from the load generator that runs here.
 */
export function startServer(
  command: string,
  args: string[],
  logDir: string,
  env: Record<string, string> = {},
): Promise<RunningServer> {
  const logFile = join(logDir, `server-${++started}.log`);
  const out = openSync(logFile, 'w');
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', out, 'pipe'] });
  closeSync(out);
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearInterval(poll);
      reject(new Error(`${args.join(' ')} ${why}: ${stderr.join('')}`));
    };
    // Only a guard against a server that never starts, never a bound on speed: a busy machine
    // (the smoke test beside the whole suite) can take a minute or more.
    const deadline = Date.now() + 600_000;
    child.once('exit', (code) => fail(`exited with ${code}`));
    const poll = setInterval(() => {
      const match = /listening on (\S+)/.exec(readFileSync(logFile, 'utf8'));
      if (match === null) {
        if (Date.now() > deadline) fail('did not start');
        return;
      }
      clearInterval(poll);
      child.removeAllListeners('exit');
      resolve({
        url: match[1]!,
        pid: child.pid!,
        stop: () => stopChild(child),
      });
    }, 25);
  });
}

let started = 0;

/**
 * Runs an admin command of the CLI (users create, keys create) to completion and returns its
 * stdout. It runs in this process, from the same build as the bench itself, before anything is
 * measured: the dozen commands of a run would each pay a process start otherwise.
 */
export async function cli(args: string[]): Promise<string> {
  const { runCommandLine } = await import('../cli/run.ts');
  let out = '';
  let err = '';
  const { code } = await runCommandLine(args, {
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
    env: process.env,
  });
  if (code !== 0) throw new Error(`monitoring-api ${args.join(' ')}: exit ${code}: ${err}`);
  return out;
}

/** Runs one of the bench's TypeScript files (`[path, ...args]`, see nodeArgs) to completion and returns its stdout. */
export function runScript([path, ...args]: [string, ...string[]]): Promise<string> {
  const argv = [...nodeArgs(path), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk));
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${argv.join(' ')}: exit ${code}: ${err}`)),
    );
  });
}

/** CPU time (user + system) a process has used so far, in microseconds, from /proc (Linux). */
export function cpuMicros(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** Busy CPU time of the whole machine so far (every core, every process), in microseconds. */
export function machineCpuMicros(): number | undefined {
  try {
    const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
    // user nice system idle iowait irq softirq steal: all but idle and iowait are busy.
    const ticks = fields.slice(0, 8).map(Number);
    return ((ticks.reduce((sum, value) => sum + value, 0) - ticks[3]! - ticks[4]!) * 1_000_000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** Linux reports process times in USER_HZ, 100 on every architecture Node runs on. */
const CLOCK_TICKS = 100;

/**
 * Binds a process (all its threads) to the given CPUs with taskset, where there is one; false
 * when it could not. Used to give a server and its load generator a core each.
 */
export function pinToCpus(pid: number, cpus: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
