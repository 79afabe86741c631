/**
 * A fake of an external HTTP service on 127.0.0.1: each request is checked against the service's
 * documented format by `check`, which answers the rejection the real service gives (its status
 * and body) or null to accept it. Accepted requests are kept for the test to read; `script` makes
 * the next answers whatever a test needs (a 429 with Retry-After, a 410), checked or not; `hold`
 * keeps the answers back, so a test can act while a sender waits on the service.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
  method: string;
  /** The path and query. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface FakeAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface FakeService {
  port: number;
  /** `http://<host>:<port>`: the host is resolved to 127.0.0.1 by the test's lookup. */
  url(host: string): string;
  /** The requests the service accepted, in order. */
  accepted: FakeRequest[];
  /** The requests it refused, with its answer. */
  refused: { request: FakeRequest; answer: FakeAnswer }[];
  /** Answers the next requests with these, in order, before any check. */
  script(...answers: FakeAnswer[]): void;
  /**
   * Keeps back the answer of every request from now on (each is still checked, or scripted, at
   * once) until `release()`; `waiting()` counts the answers kept back. `close()` lets them go too.
   */
  hold(): { release(): void; waiting(): number };
  close(): Promise<void>;
}

/** A JSON answer, as every service here gives. */
export const json = (status: number, value: unknown, headers: Record<string, string> = {}): FakeAnswer => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(value),
});

/** Parses a JSON object body; null when it is not one. */
export function jsonObject(body: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

export async function startFakeService(
  check: (request: FakeRequest) => FakeAnswer | null,
  accept: (request: FakeRequest) => FakeAnswer,
): Promise<FakeService> {
  const accepted: FakeRequest[] = [];
  const refused: FakeService['refused'] = [];
  const scripted: FakeAnswer[] = [];
  let held: Promise<void> | null = null;
  let waiting = 0;
  const releases: (() => void)[] = [];
  const releaseAll = () => {
    held = null;
    waiting = 0;
    for (const release of releases.splice(0)) release();
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      let answer = scripted.shift();
      if (answer === undefined) {
        const refusal = check(request);
        if (refusal === null) {
          accepted.push(request);
          answer = accept(request);
        } else {
          refused.push({ request, answer: refusal });
          answer = refusal;
        }
      }
      const answered = answer;
      if (held !== null) waiting++;
      void (held ?? Promise.resolve()).then(() => {
        res.writeHead(answered.status, answered.headers ?? {});
        res.end(answered.body ?? '');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (host) => `http://${host}:${port}`,
    accepted,
    refused,
    script: (...answers) => scripted.push(...answers),
    hold: () => {
      held ??= new Promise<void>((resolve) => releases.push(resolve));
      return { release: releaseAll, waiting: () => waiting };
    },
    close: () =>
      new Promise<void>((resolve) => {
        releaseAll();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
