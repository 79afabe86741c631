// The PostgreSQL baseline: raw `pg` INSERTs of device rows, `concurrency` at a time through a pool
// of the size the server uses, for `seconds`. Prints inserts per second, and this process's and
// the whole machine's CPU time per insert, as JSON.
import pg from 'pg';
import { machineCpuMicros } from './processes.ts';

const [url, poolSize, concurrency, seconds, userId] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: Number(poolSize) });
let done = 0;
let next = 0;
// The statement the API sends for a create, prepared once per connection as the API prepares it.
const query = {
  name: 'bench_insert_device',
  text: `insert into "devices" ("user_id", "target_type", "target_value", "service_type", "scheme", "port", "host_header",
    "proxy_enabled", "origin_host", "origin_scheme", "origin_port", "check_public_http", "check_public_https",
    "check_public_tls", "check_origin_http", "check_origin_tls", "expect_status", "location", "is_enabled", "created_at")
    values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)
    on conflict do nothing returning *`,
};
const insert = (name: string) =>
  pool.query({
    ...query,
    values: [
      Number(userId),
      'domain',
      `${name}-${process.pid}-${next++}.example.com`,
      'web',
      'https',
      443,
      null,
      false,
      null,
      'https',
      443,
      false,
      true,
      true,
      false,
      false,
      200,
      null,
      true,
      new Date().toISOString(),
    ],
  });
async function worker(): Promise<void> {
  while (Date.now() < deadline) {
    await insert('raw');
    done++;
  }
}
// Connected and warm before the clock starts, as the server's pool is by the time it is measured:
// with short rounds, opening ten connections inside the timed part flattered the API by a fifth.
const warmUntil = Date.now() + 300;
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    while (Date.now() < warmUntil) await insert('warm');
  }),
);
const deadline = Date.now() + Number(seconds) * 1000;
const started = Date.now();
const cpu = process.cpuUsage();
const machine = machineCpuMicros();
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
const used = process.cpuUsage(cpu);
const machineUsed = machine === undefined ? undefined : machineCpuMicros()! - machine;
console.log(
  JSON.stringify({
    perSecond: done / ((Date.now() - started) / 1000),
    cpuMicrosPerInsert: (used.user + used.system) / done,
    machineMicrosPerInsert: machineUsed === undefined ? null : machineUsed / done,
  }),
);
await pool.end();
