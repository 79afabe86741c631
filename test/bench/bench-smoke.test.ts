import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { before, it } from 'node:test';
import { ROOT } from '../support/cli.ts';
import { nodeArgs } from '../support/node-args.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';

// Runs `npm run bench` in its smoke mode: every step once, briefly, so the script cannot rot.
// Nothing here judges speed; the figures are only checked to be there.
function runBench(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs('bench/run.ts'), '--smoke', ...args], { cwd: ROOT });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

// One run of every part, the engine's included, for both tests below: a second run paid the start
// of the script, its build check and its servers again.
let run: Promise<{ code: number | null; out: string; err: string }>;
before(() => {
  run = runBench(['--only', 'me,list,create,update,stream,status,engine,scale,reports']);
});

it('the benchmark runs end to end and prints every figure', { timeout: HANG_GUARD_MS }, async () => {
  const output = await run;
  assert.equal(output.code, 0, output.err);
  for (const line of [
    /^GET \/v1\/me {2}monitoring-api \(SQLite, key auth\) {2}\d+ {2}\d+\.\d\d/m,
    /^GET \/v1\/me {2}hono/m,
    /^GET \/v1\/devices \(50, SQLite\) {2}monitoring-api {2}\d+/m,
    /^POST \/v1\/devices\/create \(PostgreSQL.*monitoring-api {2}\d+|^POST \/v1\/devices\/create \(PostgreSQL\) {2}skipped/m,
    /^POST \/v1\/devices\/create \(SQLite, c=32\) {2}fresh servers, first 100 creates {2}cpu hand [\d.]+ us\/req, api [\d.]+/m,
    /^PATCH \/v1\/devices\/update \(SQLite, c=32\) {2}PATCH vs create {2}\d+/m,
    /^PATCH \/v1\/devices\/update \(PostgreSQL, c=32\) {2}PATCH vs create {2}\d+|^PATCH \/v1\/devices\/update \(PostgreSQL\) {2}skipped/m,
    /^GET \/v1\/devices \(\d+ records, streamed\) {2}\d+ ms {2}peak RSS growth [\d.]+ MB/m,
    /^status pages \(\d+ devices checked, 20 components\) {2}page \(br\) {2}\d+ {2}\d+\.\d\d {2}cpu/m,
    /^status pages \(\d+ devices checked, 20 components\) {2}304 {2}\d+ {2}\d+\.\d\d {2}cpu/m,
  ])
    assert.match(output.out, line);
});

// The engine's part (docs/performance.md, "The engine"), on a few hundred records: every comparison and
// every PostgreSQL figure printed, and the cycle's own check that no record was checked twice. The
// cycle runs with 2 worker processes here (1 and 4 in the full run): the same lines, fewer processes.
it('the engine benchmark runs end to end and prints every figure', { timeout: HANG_GUARD_MS }, async () => {
  const output = await run;
  assert.equal(output.code, 0, output.err);
  for (const what of ['DNSBL checks', 'TCP probes', 'HTTP probes', 'webhook deliveries']) {
    assert.match(
      output.out,
      new RegExp(`^${what} \\([^)]*\\) {2}bare loop {2}\\d+ \\S+/s {2}1\\.00 {2}cpu \\d+ us/op$`, 'm'),
    );
    assert.match(output.out, new RegExp(`^${what} \\([^)]*\\) {2}engine {2}\\d+ \\S+/s {2}\\d+\\.\\d\\d`, 'm'));
  }
  if (/^PostgreSQL parts .* {2}skipped/m.test(output.out)) return;
  assert.match(output.out, /^scheduling lag \(.*\) {2}\d+ checks of \d+ {2}p50 [\d.]+ s {2}p99 [\d.]+ s/m);
  for (const workers of ['2 worker processes']) {
    assert.match(
      output.out,
      new RegExp(`^claim-and-record cycle \\(PostgreSQL.* {2}${workers} {2}\\d+ records/s .* checked twice: 0`, 'm'),
    );
  }
});

// The reports' part (docs/performance.md, "Reports"): the query figures on SQLite, and on
// PostgreSQL the query, storage, expiry and write-cost figures.
it('the reports benchmark runs end to end and prints every figure', { timeout: HANG_GUARD_MS }, async () => {
  const output = await run;
  assert.equal(output.code, 0, output.err);
  for (const what of ['availability, an outage a day', 'availability, an outage a month', 'response times, bucket=day'])
    assert.match(
      output.out,
      new RegExp(`^reports over 400 days \\(SQLite\\) {2}${what} {2}cpu [\\d.]+ us/req {2}[\\d.]+x GET /me`, 'm'),
    );
  if (/^reports over 400 days \(PostgreSQL\) {2}skipped/m.test(output.out)) return;
  assert.match(
    output.out,
    /^storage per device per day .* {2}raw results 2880 rows, \d+ bytes {2}rollups [\d.]+ rows, \d+ bytes {2}rows 1\/[\d.]+/m,
  );
  assert.match(
    output.out,
    /^expiring one day of raw results .* {2}partition drop [\d.]+ ms .* {2}batched deletes [\d.]+ s/m,
  );
  assert.match(output.out, /^claim and record, .* {2}with reports \d+\/s {2}without \d+\/s {2}ratio [\d.]+/m);
});
