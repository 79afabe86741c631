import { request } from 'node:http';
import type { Socket } from 'node:net';
import type { Device, NewDeviceProbeResult, Scheme } from '../../core/index.ts';
import { originEndpoint, originScheme, publicEndpoint, publicName, type Endpoint } from './device-endpoints.ts';
import type { ProbeOptions } from './probe-options.ts';
import { ProbeSession } from './probe-session.ts';
import { startTls } from './start-tls.ts';

export type HttpProbeName = 'public_http' | 'public_https' | 'origin_http';
export type NewHttpProbeResult<P extends HttpProbeName = HttpProbeName> = Extract<
  NewDeviceProbeResult,
  { probe: HttpProbeName }
> & { probe: P };

/** A `Location` longer than this is cut: a result row is for reading, not an open store. */
const MAX_LOCATION_LENGTH = 2048;
const USER_AGENT = 'monitoring-api-probe/1';

interface Answer {
  status: number;
  location: string | null;
}

/**
 * One GET `/` over a socket the probe already holds; resolves with the status line and the
 * `Location` as soon as the head is parsed. The body is never read: the caller destroys the socket.
 */
function getHead(session: ProbeSession, socket: Socket, hostHeader: string): Promise<Answer> {
  return session.guard(
    new Promise<Answer>((resolve, reject) => {
      const req = request({
        method: 'GET',
        path: '/',
        // No agent: the request goes over this socket, never over one Node would open itself.
        createConnection: () => socket,
        headers: { host: hostHeader, 'user-agent': USER_AGENT, accept: '*/*', connection: 'close' },
        signal: session.signal,
      });
      req.once('response', (res) => {
        const status = res.statusCode ?? 0;
        const header = res.headers.location;
        const location =
          status >= 300 && status < 400 && header !== undefined ? header.slice(0, MAX_LOCATION_LENGTH) : null;
        resolve({ status, location });
        res.destroy();
      });
      req.once('error', reject);
      req.end();
    }),
  );
}

async function probeWeb<P extends HttpProbeName>(
  probe: P,
  device: Device,
  endpoint: Endpoint | null,
  options: ProbeOptions,
): Promise<NewHttpProbeResult<P>> {
  const session = new ProbeSession(options);
  const failed = (error: string): NewHttpProbeResult<P> => ({
    probe,
    checked_at: session.checkedAt(),
    ok: false,
    response_ms: session.responseMs(),
    error,
    http_status: null,
    location: null,
  });
  try {
    if (endpoint === null) return failed('no_origin_host');
    const name = publicName(device);
    let socket: Socket = await session.connect(endpoint.host, endpoint.port);
    if (endpoint.scheme === 'https') {
      // The certificate is public_tls's business; this probe only wants the HTTP answer.
      socket = await startTls(session, socket, {
        servername: name.servername,
        identity: name.name,
        alpn: ['http/1.1'],
      });
    }
    const answer = await getHead(session, socket, name.hostHeader);
    const expected = device.expect_status ?? 200;
    const ok = answer.status === expected;
    return {
      probe,
      checked_at: session.checkedAt(),
      ok,
      response_ms: session.responseMs(),
      error: ok ? null : 'unexpected_status',
      http_status: answer.status,
      location: answer.location,
    };
  } catch (error) {
    return failed(session.failureCode(error));
  } finally {
    session.close();
  }
}

/** `public_http`: GET `/` over plain HTTP to the device's target. */
export function probePublicHttp(device: Device, options: ProbeOptions): Promise<NewHttpProbeResult<'public_http'>> {
  return probeWeb('public_http', device, publicEndpoint(device, 'http'), options);
}

/** `public_https`: GET `/` over TLS to the device's target; the certificate is not judged here. */
export function probePublicHttps(device: Device, options: ProbeOptions): Promise<NewHttpProbeResult<'public_https'>> {
  return probeWeb('public_https', device, publicEndpoint(device, 'https'), options);
}

/** `origin_http`: the same request sent to the origin over `origin_scheme`, with the public Host and SNI. */
export function probeOriginHttp(device: Device, options: ProbeOptions): Promise<NewHttpProbeResult<'origin_http'>> {
  const scheme: Scheme = originScheme(device);
  return probeWeb('origin_http', device, originEndpoint(device, scheme), options);
}
