import { createInterface } from 'node:readline';

/**
 * The protocol of a claim-and-record worker process (bench/engine-cycle.ts drives it): warms its
 * pool, prints `ready`, runs when a line comes on stdin, prints what `run` answered with its time
 * and the process's CPU as JSON, and closes when stdin ends (not before: its backends' CPU is read
 * after the run).
 */
export async function serveCycleWorker(side: {
  warm(): Promise<void>;
  run(): Promise<object>;
  close(): Promise<void>;
}): Promise<void> {
  await side.warm();
  process.stdout.write('ready\n');
  const input = createInterface({ input: process.stdin });
  const closed = new Promise<void>((resolve) => input.once('close', resolve));
  await new Promise<void>((resolve) => input.once('line', () => resolve()));
  const cpu = process.cpuUsage();
  const started = performance.now();
  const summary = await side.run();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  process.stdout.write(`${JSON.stringify({ ...summary, ms, cpuMicros: used.user + used.system })}\n`);
  await closed;
  await side.close();
}
