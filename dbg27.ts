import { createTestApi } from './core/testing/index.ts';
import { openKyselyStore, migrateToLatest } from './stores/kysely/index.ts';
import { createTestDatabase } from './test/support/postgres.ts';
const pg = await createTestDatabase();
if ('skip' in pg) throw new Error('no pg');
const { store, db } = await openKyselyStore(process.argv[2] === 'sqlite' ? 'sqlite:/tmp/dbg27.db' : pg.url);
await migrateToLatest(db);
const t = createTestApi({ store, rateLimit: { limit: 1e9, windowSeconds: 60 } });
const key = await t.createKey();
const N = 3000;
async function run(label: string, make: (i: number) => Promise<unknown>) {
  const cpu = process.cpuUsage(); const start = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: 32 }, async () => { while (next < N) await make(next++); }));
  const used = process.cpuUsage(cpu);
  console.log(label, ((used.user + used.system) / N).toFixed(1), 'us cpu/req', ((performance.now() - start) * 1000 / N).toFixed(1), 'us wall/req');
}
const ids: number[] = [];
await run('create', async (i) => { const r = await t.request<{ id: number }>('/v1/devices/create', { method: 'POST', key, body: { target_type: 'domain', target_value: `c${i}.example.com` } }); ids.push(r.body.data!.id); });
await run('create', async (i) => { await t.request('/v1/devices/create', { method: 'POST', key, body: { target_type: 'domain', target_value: `x${i}.example.com` } }); });
await run('patch', async (i) => { const r = await t.request(`/v1/devices/update?id=${ids[i % 1000]}`, { method: 'PATCH', key, body: { target_value: `p${i}.example.com` } }); if (r.status !== 200) throw new Error(r.text); });
await run('patch', async (i) => { await t.request(`/v1/devices/update?id=${ids[i % 1000]}`, { method: 'PATCH', key, body: { target_value: `q${i}.example.com` } }); });
await run('get', async (i) => { await t.request(`/v1/devices/get?id=${ids[i % 1000]}`, { key }); });
await store.close(); await pg.drop();
