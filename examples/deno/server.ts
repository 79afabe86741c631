/**
 * The API on Deno.serve, over the database DATABASE_URL names (default: a SQLite file, opened
 * through node:sqlite; postgres:// URLs go through npm:pg).
 *
 *   npm run example:deno                       # PORT=3000, DATABASE_URL=sqlite:./data/monitoring.db
 *
 * In an application the imports read 'monitoring-api', 'monitoring-api/deno' and 'monitoring-api/kysely'
 * (npm: specifiers, or bare names with a package.json beside deno.json).
 */
import { createDenoHandler, type DenoServeHandler } from '../../adapters/deno/index.ts';
import { createMonitoringApi } from '../../core/index.ts';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';

/** What this example uses of Deno's global, declared here so that tsc needs no Deno types. */
declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(
    options: { hostname: string; port: number; onListen(address: { hostname: string; port: number }): void },
    handler: DenoServeHandler,
  ): {
    /** Stops listening; resolves once the requests in flight are answered. */
    shutdown(): Promise<void>;
  };
  addSignalListener(signal: 'SIGTERM' | 'SIGINT', listener: () => void): void;
  exit(code: number): never;
};

const port = Number(Deno.env.get('PORT') ?? 3000);
const hostname = Deno.env.get('HOST') ?? '127.0.0.1';

const { store, db } = await openKyselyStore(Deno.env.get('DATABASE_URL') ?? 'sqlite:./data/monitoring.db');
await migrateToLatest(db); // idempotent; keys are made with the CLI, never here
const api = createMonitoringApi({
  store,
  logger: { error: (message, error, requestId) => console.error(message, requestId, error) },
});

// Requests outside /v1 get the API's own 404 `unknown_route`.
const server = Deno.serve(
  {
    hostname,
    port,
    onListen: (address) => {
      const shown = address.hostname.includes(':') ? `[${address.hostname}]` : address.hostname;
      console.log(`listening on http://${shown}:${address.port}${api.basePath}`);
    },
  },
  createDenoHandler(api),
);

// Stop accepting, let requests in flight finish, then write pending key usage and close the store.
async function stop(): Promise<void> {
  await server.shutdown();
  await api.close();
  await store.close();
}
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  // A signal listener keeps Deno alive, so the exit is explicit once everything is closed.
  Deno.addSignalListener(
    signal,
    () =>
      void stop().then(
        () => Deno.exit(0),
        (error: unknown) => {
          console.error('stopping failed:', error);
          Deno.exit(1);
        },
      ),
  );
}
