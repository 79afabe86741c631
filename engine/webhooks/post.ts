import { request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import { isIP } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { ProbeFailure, type Connector } from '../net/connector.ts';
import type { WebhookRequest } from './payload.ts';

export interface PostOptions {
  connector: Connector;
  /** The whole attempt, connecting included: past it the attempt failed with `timeout`. */
  timeoutMs: number;
  /**
   * Extra TLS options for https endpoints signed by an authority of one's own; certificates are
   * always verified. A `secureContext` is made once and serves every delivery (the engine passes
   * one, engine/net/trusted-context.ts); `ca` builds a context per connection, which costs tens of
   * milliseconds of CPU each.
   */
  tls?: Pick<ConnectionOptions, 'ca' | 'secureContext'>;
  signal?: AbortSignal;
}

/** The endpoint's answer: its status. The body is not read (it is drained and dropped). */
export interface PostAnswer {
  status: number;
}

/**
 * POSTs one webhook request. The connection comes from the connector, which resolved the host
 * and judged every address by the target policy: the socket it answers is used as it is (no
 * second resolution, so no DNS rebinding between the check and the connection). For https it is
 * wrapped in TLS with the URL's host name as SNI and for the certificate check.
 * Fails with a ProbeFailure: `timeout`, `forbidden_address`, or the system's code.
 */
export async function postWebhook(url: string, req: WebhookRequest, options: PostOptions): Promise<PostAnswer> {
  const target = new URL(url);
  const https = target.protocol === 'https:';
  const host = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
  const port = target.port === '' ? (https ? 443 : 80) : Number(target.port);
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal === undefined ? deadline : AbortSignal.any([deadline, options.signal]);
  const failure = (error: unknown): ProbeFailure => {
    if (error instanceof ProbeFailure) return error;
    if (deadline.aborted) return new ProbeFailure('timeout', 'the endpoint did not answer in time', { cause: error });
    const code = (error as { code?: unknown }).code;
    return new ProbeFailure(typeof code === 'string' ? code : 'request_failed', String(error), { cause: error });
  };

  let socket: Socket | undefined;
  try {
    ({ socket } = await options.connector.connect({ host, port, timeoutMs: options.timeoutMs, signal }));
    if (https) socket = await startTls(socket, host, options.tls);
    return await send(socket, target, host, req, signal);
  } catch (error) {
    throw failure(error);
  } finally {
    socket?.destroy();
  }
}

/** An attempt's answer: the endpoint's status when it answered, and why it failed (null for a 2xx). */
export interface SentWebhook {
  status: number | null;
  error: string | null;
}

/** POSTs one webhook request and says how it went; never rejects (see postWebhook). */
export async function sendWebhook(url: string, req: WebhookRequest, options: PostOptions): Promise<SentWebhook> {
  try {
    const { status } = await postWebhook(url, req, options);
    return { status, error: status >= 200 && status < 300 ? null : `http_${status}` };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { status: null, error: typeof code === 'string' ? code : 'request_failed' };
  }
}

function startTls(raw: Socket, host: string, extra: PostOptions['tls']): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const secure = tlsConnect({
      socket: raw,
      servername: isIP(host) === 0 ? host : undefined,
      ALPNProtocols: ['http/1.1'],
      ...extra,
    });
    secure.once('secureConnect', () => resolve(secure));
    secure.once('error', (error) => {
      raw.destroy();
      reject(error);
    });
  });
}

function send(
  socket: Socket,
  target: URL,
  host: string,
  req: WebhookRequest,
  signal: AbortSignal,
): Promise<PostAnswer> {
  return new Promise((resolve, reject) => {
    const hostHeader = target.host;
    const outgoing = httpRequest(
      {
        method: 'POST',
        host,
        path: `${target.pathname}${target.search}`,
        headers: {
          ...req.headers,
          host: hostHeader,
          'content-length': String(Buffer.byteLength(req.body)),
          connection: 'close',
        },
        // With createConnection and no `agent` option, Node uses this socket and nothing else.
        // (`agent: false` would make a fresh Agent that ignores createConnection and resolves the
        // host itself: a second resolution, past the policy. The delivery tests catch that, since
        // their host names resolve only through the injected lookup.)
        createConnection: () => socket,
        signal,
      },
      (response) => {
        // Only the status matters; the rest is read and dropped so the socket can close cleanly.
        response.resume();
        resolve({ status: response.statusCode ?? 0 });
      },
    );
    outgoing.once('error', reject);
    outgoing.end(req.body);
  });
}
