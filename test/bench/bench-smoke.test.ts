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
  run = runBench(['--only', 'me,list,create,update,stream,status,engine,scale,reports,notifications,heartbeats']);
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

// The channels' part (docs/notifications.md, "Performance"): chat messages against webhook
// deliveries, and a burst every notification of which is delivered, on SQLite and PostgreSQL.
it('the notifications benchmark runs end to end and prints every figure', { timeout: HANG_GUARD_MS }, async () => {
  const output = await run;
  assert.equal(output.code, 0, output.err);
  assert.match(
    output.out,
    /^chat messages \(\d+, one event each, c=20\) {2}webhook delivery {2}\d+ \/s {2}cpu \d+ us\/op {2}1\.00$/m,
  );
  assert.match(
    output.out,
    /^chat messages \(\d+, one event each, c=20\) {2}Slack message {2}\d+ \/s {2}cpu \d+ us\/op {2}\d+\.\d\d/m,
  );
  for (const store of ['SQLite', 'PostgreSQL']) {
    const burst = new RegExp(
      `^burst of (\\d+) events to \\d+ Slack channels \\(${store}\\) {2}(?:(\\d+) delivered {2}last after [\\d.]+ s {2}\\d+ messages, \\d+-\\d+ per channel|skipped)`,
      'm',
    ).exec(output.out);
    assert.ok(burst, `the ${store} burst is printed`);
    if (burst[2] !== undefined) assert.equal(burst[2], burst[1], 'every notification of the burst is delivered');
  }
});

// The heartbeats' part (docs/heartbeats.md, "Performance"): pings against GET /me, and on
// PostgreSQL every ping recorded and every un-pinged heartbeat found late, none of the others.
it('the heartbeats benchmark runs end to end and prints every figure', { timeout: HANG_GUARD_MS }, async () => {
  const output = await run;
  assert.equal(output.code, 0, output.err);
  assert.match(
    output.out,
    /^GET \/ping\/<uuid> \(SQLite\) {2}ping {2}\d+ {2}[\d.]+ {2}cpu [\d.]+ us\/req {2}[\d.]+x GET \/me/m,
  );
  if (/^GET \/ping\/<uuid> \(PostgreSQL\) {2}skipped/m.test(output.out)) return;
  assert.match(
    output.out,
    /^GET \/ping\/<uuid> \(PostgreSQL\) {2}ping {2}\d+ {2}[\d.]+ {2}cpu [\d.]+ us\/req {2}[\d.]+x GET \/me/m,
  );
  const pings =
    /^heartbeats at 60 s \(PostgreSQL.* {2}pings (\d+) of (\d+) answered 200 {2}\d+ sent, \d+\/s .* {2}recorded (\d+)/m.exec(
      output.out,
    );
  assert.ok(pings, 'the pings are printed');
  assert.equal(pings[1], pings[2], 'every ping is answered 200');
  assert.equal(pings[3], pings[1], 'every ping is recorded');
  const late =
    /^heartbeats at 60 s \(PostgreSQL.* {2}late (\d+) of (\d+) un-pinged {2}p50 [\d.-]+ s {2}p99 [\d.-]+ s .* {2}false downs (\d+)/m.exec(
      output.out,
    );
  assert.ok(late, 'the lateness is printed');
  assert.equal(late[1], late[2], 'every un-pinged heartbeat is found late');
  assert.equal(late[3], '0', 'no pinged heartbeat goes down');
});
