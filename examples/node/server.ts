/**
 * The API on node:http, over the database DATABASE_URL names (default: a SQLite file).
 *
 *   npm run example:node                       # PORT=3000, DATABASE_URL=sqlite:./data/monitoring.db
 *   node cli/main.ts users create              # then `keys create --user <id>` for a token
 *
 * In an application the imports read 'monitoring-api', 'monitoring-api/node' and 'monitoring-api/kysely'.
 */
import { createServer } from 'node:http';
import { createNodeHandler } from '../../adapters/node/index.ts';
import { createMonitoringApi } from '../../core/index.ts';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';

const { store, db } = await openKyselyStore(process.env.DATABASE_URL ?? 'sqlite:./data/monitoring.db');
await migrateToLatest(db); // idempotent; keys are made with the CLI, never here
const api = createMonitoringApi({
  store,
  logger: { error: (message, error, requestId) => console.error(message, requestId, error) },
});

// Without a `next`, requests outside /v1 get the API's own 404 `unknown_route`.
const server = createServer(createNodeHandler(api));
server.listen(port, host, () => {
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  console.log(`listening on http://${host.includes(':') ? `[${host}]` : host}:${bound}${api.basePath}`);
});

// Stop accepting, let requests in flight finish, then write pending key usage and close the store.
async function stop(): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await api.close();
  await store.close();
}
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  // Nothing is left to keep the process alive afterwards: it exits by itself, with code 0.
  process.once(
    signal,
    () =>
      void stop().catch((error: unknown) => {
        console.error('stopping failed:', error);
        process.exitCode = 1;
      }),
  );
}
