import type { IncomingMessage, ServerResponse } from 'node:http';

/** Whether the process can do its work: its database reachable and its schema current. */
export type ReadinessCheck = () => Promise<boolean>;

/** How long `/readyz` waits for its check before it answers 503. */
export const READINESS_DEADLINE_MS = 5_000;

const HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } as const;

function answer(req: IncomingMessage, res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { ...HEADERS, 'content-length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** The check, settled within the deadline; a check that throws or stalls is "not ready". */
function readyWithin(ready: ReadinessCheck, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    ready()
      .then(
        (ok) => resolve(ok),
        () => resolve(false),
      )
      .finally(() => clearTimeout(timer));
  });
}

/**
 * Answers `GET /healthz` (the process is up: always 200) and `GET /readyz` (200 when `ready`
 * says so within five seconds, else 503), HEAD too; says false for any other request, which the
 * caller answers. No key is asked, so the answers say nothing but `ok` or `unavailable`: not which
 * part failed, nor any version, address or error (docs/operations.md, "Health").
 */
export function answerHealth(req: IncomingMessage, res: ServerResponse, ready: ReadinessCheck): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const path = (req.url ?? '/').split('?', 1)[0];
  if (path === '/healthz') {
    answer(req, res, 200, '{"status":"ok"}');
    return true;
  }
  if (path !== '/readyz') return false;
  void readyWithin(ready, READINESS_DEADLINE_MS).then((ok) => {
    if (ok) answer(req, res, 200, '{"status":"ok"}');
    else answer(req, res, 503, '{"status":"unavailable"}');
  });
  return true;
}
