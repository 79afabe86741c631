import type { MonitoringApi } from '../../core/index.ts';

/** What this adapter uses of `Deno.ServeHandlerInfo` (typed here so the package needs no Deno types). */
export interface DenoServeInfo {
  remoteAddr: { transport: string; hostname?: string };
}

export type DenoServeHandler = (request: Request, info: DenoServeInfo) => Promise<Response>;

/** A handler for `Deno.serve`; the client address is the connection's `remoteAddr`. */
export function createDenoHandler(api: MonitoringApi): DenoServeHandler {
  return (request, info) => api.fetch(request, { clientAddress: info.remoteAddr.hostname ?? null });
}
