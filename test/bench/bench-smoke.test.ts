import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { it } from 'node:test';
import { ROOT } from '../support/cli.ts';

// Runs `npm run bench` in its smoke mode: every step once, briefly, so the script cannot rot.
// Nothing here judges speed; the figures are only checked to be there.
it('the benchmark runs end to end and prints every figure', { timeout: 240_000 }, async () => {
  const output = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--smoke'], { cwd: ROOT });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk));
    child.on('close', (code) => resolve({ code, out, err }));
  });
  assert.equal(output.code, 0, output.err);
  for (const line of [
    /^GET \/v1\/me {2}monitoring-api \(SQLite, key auth\) {2}\d+ {2}\d+\.\d\d/m,
    /^GET \/v1\/me {2}hono/m,
    /^GET \/v1\/devices \(50, SQLite\) {2}monitoring-api {2}\d+/m,
    /^POST \/v1\/devices\/create \(PostgreSQL.*monitoring-api {2}\d+|^POST \/v1\/devices\/create \(PostgreSQL\) {2}skipped/m,
    /^GET \/v1\/devices \(\d+ records, streamed\) {2}\d+ ms {2}peak RSS growth [\d.]+ MB/m,
  ]) assert.match(output.out, line);
});
