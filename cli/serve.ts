import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createNodeHandler } from '../adapters/node/index.ts';
import { createMonitoringApi, DEFAULTS, KeyAdmin } from '../core/index.ts';
import { databaseUrl, hasUsers, openMigrated } from './database.ts';
import { cidrs, list, port, positiveInt, rateLimit, readFlags, text } from './flags.ts';
import { rateLimiterFromUrl } from './rate-limiter-from-url.ts';
import { jsonLogger } from './request-log.ts';
import { UsageError } from './usage-error.ts';

const SPEC = {
  host: { type: 'string' },
  port: { type: 'string' },
  database: { type: 'string' },
  'rate-limit': { type: 'string' },
  'rate-limit-store': { type: 'string' },
  'rate-limit-fail': { type: 'string' },
  'trust-proxy': { type: 'string', multiple: true },
  'allow-private-targets': { type: 'boolean' },
  'body-limit': { type: 'string' },
} as const;

/** How long a shutdown may wait for requests in flight before it gives up on them. */
const DRAIN_DEADLINE_MS = 10_000;

const CLIENT_ERRORS: Record<string, [number, string, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'request_header_fields_too_large', 'The request line or headers are too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request_timeout', 'The request was not received in time.'],
};

/**
 * Requests node:http refuses before the API sees them (malformed, oversized headers, too slow)
 * still get a JSON answer in the API's envelope, then the connection closes.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || (error.code === 'ECONNRESET')) {
    socket.destroy();
    return;
  }
  const [status, reason, code, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'Bad Request', 'bad_request', 'The request is not valid HTTP.'];
  const body = JSON.stringify({ success: false, error: { code, message } });
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** `monitoring-api serve`: the API on node:http until SIGTERM or SIGINT. */
export async function serve(args: readonly string[]): Promise<void> {
  const { flags } = readFlags(args, SPEC);
  const host = text(flags, 'host') ?? process.env.HOST ?? '127.0.0.1';
  const listenPort = port(text(flags, 'port') ?? process.env.PORT ?? '8080');
  const url = databaseUrl(text(flags, 'database'));
  const limit = rateLimit(text(flags, 'rate-limit') ?? `${DEFAULTS.rateLimit.limit}/${DEFAULTS.rateLimit.windowSeconds}`);
  const trustProxy = cidrs(list(flags, 'trust-proxy'), '--trust-proxy');
  const bodyLimit = positiveInt(text(flags, 'body-limit') ?? String(DEFAULTS.bodyLimit), '--body-limit', 64 * 1024 * 1024);
  const failMode = text(flags, 'rate-limit-fail') ?? process.env.RATE_LIMIT_FAIL ?? 'open';
  if (failMode !== 'open' && failMode !== 'closed') throw new UsageError(`--rate-limit-fail must be open or closed, not "${failMode}"`);
  const logger = jsonLogger();
  const rateLimiter = await rateLimiterFromUrl(text(flags, 'rate-limit-store') ?? process.env.RATE_LIMIT_STORE ?? 'memory', logger, failMode === 'open');

  const opened = await openMigrated(url);
  if (!(await hasUsers(opened))) {
    const admin = new KeyAdmin(opened.store);
    const user = await admin.createUser({ name: 'admin' });
    const { key, token } = await admin.createApiKey({ userId: user.id, scopes: ['read', 'write'], name: 'bootstrap' });
    process.stdout.write(
      `monitoring-api: new database, created user ${user.id} and a read+write API key (id ${key.id}).\n`
      + `monitoring-api: API key (shown once, keep it now): ${token}\n`,
    );
  }

  const api = createMonitoringApi({
    store: opened.store, rateLimiter, rateLimit: limit, trustProxy, bodyLimit, logger,
    allowPrivateTargets: flags['allow-private-targets'] === true,
  });
  // Slow or stalled clients must not hold sockets open indefinitely. Node enforces the header and
  // request timeouts only when it checks its connections, every 30 s unless told otherwise.
  const server = createServer({ connectionsCheckingInterval: 1_000 }, createNodeHandler(api));
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  server.on('clientError', answerClientError);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenPort, host, () => resolve());
  }).catch(async (error: NodeJS.ErrnoException) => {
    await opened.store.close();
    await rateLimiter.close?.();
    throw new UsageError(`cannot listen on ${host}:${listenPort}: ${error.code ?? error.message}`);
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.address.includes(':') ? `[${address.address}]` : address.address;
  process.stdout.write(`listening on http://${shownHost}:${address.port}${api.basePath}\n`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.flush();
      process.stderr.write(`monitoring-api: ${signal} again, exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    const deadline = setTimeout(() => {
      logger.flush();
      process.stderr.write('monitoring-api: requests still in flight after 10 s, exiting\n');
      process.exit(1);
    }, DRAIN_DEADLINE_MS);
    deadline.unref();
    // close() stops accepting and waits for requests in flight; idle keep-alive sockets go now.
    server.close(async () => {
      await api.close();
      await rateLimiter.close?.();
      await opened.store.close();
      clearTimeout(deadline);
      logger.flush();
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
