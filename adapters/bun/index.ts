import type { MonitoringApi } from '../../core/index.ts';

/** What this adapter uses of Bun's `Server` (typed here so the package needs no Bun types). */
export interface BunServerLike {
  requestIP(request: Request): { address: string } | null;
}

export type BunFetchHandler = (request: Request, server: BunServerLike) => Promise<Response>;

/**
 * A `fetch` handler for `Bun.serve`. Bun reports IPv4 peers as `::ffff:a.b.c.d`; the core
 * treats that as the IPv4 address. `requestIP` is null for a Unix socket: no address, so only
 * keys without an allow-list are admitted.
 */
export function createBunHandler(api: MonitoringApi): BunFetchHandler {
  return (request, server) => api.fetch(request, { clientAddress: server.requestIP(request)?.address ?? null });
}
