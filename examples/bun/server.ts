/**
 * The API on Bun.serve, over the database DATABASE_URL names (default: a SQLite file, opened
 * through bun:sqlite).
 *
 *   npm run example:bun                        # PORT=3000, DATABASE_URL=sqlite:./data/monitoring.db
 *
 * In an application the imports read 'monitoring-api', 'monitoring-api/bun' and 'monitoring-api/kysely'.
 */
import { createBunHandler, type BunFetchHandler } from '../../adapters/bun/index.ts';
import { createMonitoringApi } from '../../core/index.ts';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';

/** What this example uses of Bun's global, declared here so that tsc needs no Bun types. */
declare const Bun: {
  serve(options: { hostname: string; port: number; fetch: BunFetchHandler }): {
    readonly port: number;
    /** Stops listening; resolves once the requests in flight are answered. */
    stop(closeActiveConnections?: boolean): Promise<void>;
  };
};

const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.HOST ?? '127.0.0.1';

const { store, db } = await openKyselyStore(process.env.DATABASE_URL ?? 'sqlite:./data/monitoring.db');
await migrateToLatest(db); // idempotent; keys are made with the CLI, never here
const api = createMonitoringApi({
  store,
  logger: { error: (message, error, requestId) => console.error(message, requestId, error) },
});

// Requests outside /v1 get the API's own 404 `unknown_route`.
const server = Bun.serve({ hostname, port, fetch: createBunHandler(api) });
console.log(`listening on http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${server.port}${api.basePath}`);

// Stop accepting, let requests in flight finish, then write pending key usage and close the store.
async function stop(): Promise<void> {
  await server.stop();
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
