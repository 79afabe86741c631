import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface RunningServer {
  /** The API's base URL, as the server printed it (`listening on <url>`). */
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts a server process and resolves once it prints `listening on <url>`; its output is drained. */
export function startServer(command: string, args: string[], env: Record<string, string> = {}): Promise<RunningServer> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start: ${stderr.join('')}`)), 20_000);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${stderr.join('')}`)));
    lines.on('line', (line) => {
      const match = /listening on (\S+)/.exec(line);
      if (!match) return;
      clearTimeout(timer);
      resolve({
        url: match[1]!,
        pid: child.pid!,
        stop: () => new Promise((done) => {
          if (child.exitCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGTERM');
        }),
      });
    });
  });
}

/** Runs the CLI (or, with `script`, a TypeScript file) to completion and returns its stdout. */
export function cli(args: string[], script = false): Promise<string> {
  const argv = ['--import', 'tsx', ...(script ? [] : ['cli/main.ts']), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${argv.join(' ')}: exit ${code}: ${err}`))));
  });
}
