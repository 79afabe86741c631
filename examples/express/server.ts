/**
 * A host application on Express 5 with routes of its own and the API mounted at
 * /api/monitoring/v1, over the database DATABASE_URL names (default: a SQLite file).
 *
 *   npm run example:express                    # PORT=3000, DATABASE_URL=sqlite:./data/monitoring.db
 *
 * In an application the imports read 'monitoring-api', 'monitoring-api/express' and 'monitoring-api/kysely'.
 */
import express from 'express';
import { monitoringApiMiddleware } from '../../adapters/express/index.ts';
import { createMonitoringApi } from '../../core/index.ts';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';

const { store, db } = await openKyselyStore(process.env.DATABASE_URL ?? 'sqlite:./data/monitoring.db');
await migrateToLatest(db); // idempotent; keys are made with the CLI, never here
const api = createMonitoringApi({
  store,
  basePath: '/v1', // the default, relative to where the middleware is mounted below
  logger: { error: (message, error, requestId) => console.error(message, requestId, error) },
});

const app = express();

// The host's own routes.
app.get('/health', (_req, res) => {
  res.json({ status: 'ok' });
});

// Hosts often parse JSON ahead of everything. Here it covers only the devices routes, so that
// both paths are exercised: bodies the host parsed (the API reuses them, its rules still applied)
// and raw streams (blacklist monitors: the API reads them under its own limit).
app.use('/api/monitoring/v1/devices', express.json());

// The API: /api/monitoring + basePath /v1. Anything else under /api/monitoring falls through.
app.use('/api/monitoring', monitoringApiMiddleware(api));

app.use((_req, res) => {
  res.status(404).json({ error: 'not found (host)' });
});

const server = app.listen(port, host, (error?: Error) => {
  // Express 5 hands a failure to listen (the port is taken) to this callback.
  if (error) throw error;
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  console.log(`listening on http://${host.includes(':') ? `[${host}]` : host}:${bound}/api/monitoring${api.basePath}`);
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
