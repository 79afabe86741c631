/**
 * The client as Bun and Deno run it (their own TypeScript support): `bun test/client/runtime-smoke.ts
 * BASE_URL TOKEN` or `deno run --allow-net test/client/runtime-smoke.ts BASE_URL TOKEN`. Calls
 * every kind of method against the server and prints one JSON line with what came back.
 */
import { createMonitoringClient, MonitoringApiError } from '../../client/index.ts';

const runtime = globalThis as { Deno?: { args: string[] }; process?: { argv: string[] } };
const [baseUrl, token] = runtime.Deno?.args ?? runtime.process?.argv.slice(2) ?? [];
if (baseUrl === undefined || token === undefined) throw new Error('usage: runtime-smoke.ts BASE_URL TOKEN');

const api = createMonitoringClient({ baseUrl, token, retry: { retries: 2 } });
const me = await api.me();
const target = `smoke-${Math.random().toString(36).slice(2, 10)}.example.com`;
const monitor = await api.blacklistMonitors.create({ target_type: 'domain', target_value: target });
let duplicateOf: number | undefined;
try {
  await api.blacklistMonitors.create({ target_type: 'domain', target_value: target });
} catch (error) {
  if (!(error instanceof MonitoringApiError)) throw error;
  duplicateOf = error.existingId;
}
const ids: number[] = [];
for await (const item of api.blacklistMonitors.all({ pageSize: 1 })) ids.push(item.id);
const deleted = await api.blacklistMonitors.delete(monitor.id);
console.log(
  JSON.stringify({
    userId: me.user_id,
    created: monitor.id,
    duplicateOf,
    listed: ids.includes(monitor.id),
    deleted: deleted.deleted,
  }),
);
