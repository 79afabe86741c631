// The PostgreSQL baseline: raw `pg` INSERTs of device rows, `concurrency` at a time through a pool
// of the size the server uses, for `seconds`. Prints inserts per second as JSON.
import pg from 'pg';

const [url, poolSize, concurrency, seconds, userId] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: Number(poolSize) });
const deadline = Date.now() + Number(seconds) * 1000;
let done = 0;
let next = 0;
const text = `insert into devices (user_id, target_type, target_value, service_type, scheme, port, host_header,
  proxy_enabled, origin_host, origin_scheme, origin_port, check_public_http, check_public_https, check_public_tls,
  check_origin_http, check_origin_tls, expect_status, location, is_enabled, created_at)
  values ($1, 'domain', $2, 'web', 'https', 443, null, false, null, 'https', 443, false, true, true, false, false, 200, null, true, $3)
  on conflict do nothing returning *`;
async function worker(): Promise<void> {
  while (Date.now() < deadline) {
    await pool.query(text, [Number(userId), `raw-${process.pid}-${next++}.example.com`, new Date().toISOString()]);
    done++;
  }
}
const started = Date.now();
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
console.log(JSON.stringify({ perSecond: done / ((Date.now() - started) / 1000) }));
await pool.end();
