import type { TLSSocket } from 'node:tls';
import type { Device, NewDeviceProbeResult } from '../../core/index.ts';
import { originEndpoint, publicEndpoint, publicName, type Endpoint } from './device-endpoints.ts';
import type { ProbeOptions } from './probe-options.ts';
import { ProbeSession } from './probe-session.ts';
import { startTls } from './start-tls.ts';

export type TlsProbeName = 'public_tls' | 'origin_tls';
export type NewTlsProbeResult<P extends TlsProbeName = TlsProbeName> = Extract<
  NewDeviceProbeResult,
  { probe: TlsProbeName }
> & { probe: P };

const DAY_MS = 86_400_000;

/** The certificate's end of validity as a timestamp, or null when none was shown or it is unreadable. */
function validTo(socket: TLSSocket): string | null {
  const certificate = socket.getPeerCertificate();
  // Node answers `{}` when the peer showed no certificate.
  if (typeof certificate.valid_to !== 'string') return null;
  const ms = Date.parse(certificate.valid_to);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

async function probeTls<P extends TlsProbeName>(
  probe: P,
  device: Device,
  endpoint: Endpoint | null,
  options: ProbeOptions,
): Promise<NewTlsProbeResult<P>> {
  const session = new ProbeSession(options);
  try {
    if (endpoint === null) throw Object.assign(new Error('no origin host'), { code: 'no_origin_host' });
    const name = publicName(device);
    const socket = await session.connect(endpoint.host, endpoint.port);
    const tls = await startTls(session, socket, { servername: name.servername, identity: name.name, ca: options.ca });
    const responseMs = session.responseMs();
    const until = validTo(tls);
    // Node's verdict on chain, dates and name, in its own words (`CERT_HAS_EXPIRED`, ...).
    const tlsError = tls.authorized ? null : String(tls.authorizationError ?? 'UNABLE_TO_VERIFY');
    return {
      probe,
      checked_at: session.checkedAt(),
      ok: tlsError === null,
      response_ms: responseMs,
      error: tlsError,
      tls_valid_to: until,
      tls_days_left: until === null ? null : Math.floor((Date.parse(until) - options.clock.now()) / DAY_MS),
      tls_error: tlsError,
    };
  } catch (error) {
    // No handshake, no certificate: the failure is the connection's, not the certificate's.
    return {
      probe,
      checked_at: session.checkedAt(),
      ok: false,
      response_ms: session.responseMs(),
      error: session.failureCode(error),
      tls_valid_to: null,
      tls_days_left: null,
      tls_error: null,
    };
  } finally {
    session.close();
  }
}

/** `public_tls`: a handshake with the device's target, the certificate verified for its public name. */
export function probePublicTls(device: Device, options: ProbeOptions): Promise<NewTlsProbeResult<'public_tls'>> {
  return probeTls('public_tls', device, publicEndpoint(device, 'https'), options);
}

/** `origin_tls`: a handshake with the origin, SNI and verification for the public name. */
export function probeOriginTls(device: Device, options: ProbeOptions): Promise<NewTlsProbeResult<'origin_tls'>> {
  return probeTls('origin_tls', device, originEndpoint(device, 'https'), options);
}
