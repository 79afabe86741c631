import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { isIP } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { ProbeFailure, type Connector } from './connector.ts';

/** What is POSTed: the body and the headers (`host`, `content-length` and `connection` are added). */
export interface OutgoingPost {
  body: string;
  headers: Record<string, string>;
}

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
  /**
   * How much of the answer's body to keep, in bytes (a service's error says why there); 0, the
   * default, drops it unread. Past it the rest is not read.
   */
  keepBodyBytes?: number;
  /**
   * Told once the whole request is written to the connection: from then on the endpoint may have
   * taken it in, whatever follows (no answer in time, a reset).
   */
  onWritten?(): void;
}

/** The endpoint's answer: its status, headers and the start of its body (`keepBodyBytes`). */
export interface PostAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The first `keepBodyBytes` of the body as UTF-8; '' when none were kept. */
  body: string;
}

/**
 * POSTs one request: a webhook's delivery, a channel's message. The connection comes from the
 * connector, which resolved the host and judged every address by the target policy: the socket it
 * answers is used as it is (no second resolution, so no DNS rebinding between the check and the
 * connection). For https it is wrapped in TLS with the URL's host name as SNI and for the
 * certificate check.
 * Fails with a ProbeFailure: `timeout`, `forbidden_address`, or the system's code.
 */
export async function postRequest(url: string, req: OutgoingPost, options: PostOptions): Promise<PostAnswer> {
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
    if (https) socket = await startTls(socket, host, options.tls, signal);
    return await send(socket, target, host, req, signal, options);
  } catch (error) {
    throw failure(error);
  } finally {
    socket?.destroy();
  }
}

/** The TLS handshake, ended by `signal` too: an endpoint that never answers it holds nothing past the deadline. */
function startTls(raw: Socket, host: string, extra: PostOptions['tls'], signal: AbortSignal): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const secure = tlsConnect({
      socket: raw,
      servername: isIP(host) === 0 ? host : undefined,
      ALPNProtocols: ['http/1.1'],
      ...extra,
    });
    const abort = () => {
      secure.destroy();
      raw.destroy();
      reject(signal.reason as Error);
    };
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    secure.once('secureConnect', () => {
      signal.removeEventListener('abort', abort);
      resolve(secure);
    });
    secure.once('error', (error) => {
      signal.removeEventListener('abort', abort);
      raw.destroy();
      reject(error);
    });
  });
}

function send(
  socket: Socket,
  target: URL,
  host: string,
  req: OutgoingPost,
  signal: AbortSignal,
  options: Pick<PostOptions, 'keepBodyBytes' | 'onWritten'>,
): Promise<PostAnswer> {
  const keepBodyBytes = options.keepBodyBytes ?? 0;
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
        const answer = { status: response.statusCode ?? 0, headers: response.headers };
        if (keepBodyBytes === 0) {
          // Only the status and headers matter; the rest is read and dropped so the socket can close cleanly.
          response.resume();
          resolve({ ...answer, body: '' });
          return;
        }
        const chunks: Buffer[] = [];
        let kept = 0;
        const done = () =>
          resolve({ ...answer, body: Buffer.concat(chunks).subarray(0, keepBodyBytes).toString('utf8') });
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          kept += chunk.length;
          // Enough to say why: the rest is not waited for (the socket is destroyed by the caller).
          if (kept >= keepBodyBytes) done();
        });
        response.once('end', done);
        response.once('error', reject);
      },
    );
    outgoing.once('error', reject);
    if (options.onWritten !== undefined) outgoing.once('finish', options.onWritten);
    outgoing.end(req.body);
  });
}
