import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { nodeArgs } from '../test/support/node-args.ts';
import { stopChild } from './processes.ts';

export interface EngineTargets {
  /** The fake DNS server, `127.0.0.1:PORT`. */
  dns: string;
  tcp: number;
  http: number;
  receiver: number;
  /** The fake Slack's port (test/support/fakes/slack.ts). */
  slack: number;
  pid: number;
  stop(): Promise<void>;
}

/** Starts bench/engine-targets.ts and resolves with the addresses it printed. */
export function startEngineTargets(): Promise<EngineTargets> {
  const child = spawn(process.execPath, nodeArgs('bench/engine-targets.ts'), { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench/engine-targets.ts exited with ${code}`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      child.removeAllListeners('exit');
      const ports = JSON.parse(line) as Omit<EngineTargets, 'pid' | 'stop'>;
      resolve({
        ...ports,
        pid: child.pid!,
        stop: () => stopChild(child),
      });
    });
  });
}
