import { isIP } from 'node:net';
import type { Device, Scheme } from '../../core/index.ts';

/** Where a probe connects and what name it presents there. */
export interface Endpoint {
  /** What the connector resolves and judges: a host name or an IP literal. */
  host: string;
  port: number;
  scheme: Scheme;
}

/** The public name of a device: what its Host header, SNI and certificate check are about. */
export interface PublicName {
  /** `host_header` without its port, else `target_value`: the name a certificate must carry. */
  name: string;
  /** The SNI to send: the name, or none when it is an IP address (RFC 6066 forbids literals). */
  servername: string | undefined;
  /** The HTTP `Host` header value. */
  hostHeader: string;
}

const DEFAULT_PORTS: Record<Scheme, number> = { http: 80, https: 443 };

/** Splits `name[:port]` (and `[v6]:port`) as `host_header` may be written. */
function splitHostHeader(value: string): { name: string; port: string | null } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(value);
  if (bracketed) return { name: bracketed[1] ?? '', port: bracketed[2] ?? null };
  const colon = value.lastIndexOf(':');
  // More than one colon without brackets is a bare IPv6 address, not a port.
  if (colon === -1 || value.indexOf(':') !== colon) return { name: value, port: null };
  return { name: value.slice(0, colon), port: value.slice(colon + 1) };
}

/** The scheme the device's public web probes speak. */
export function publicScheme(device: Device): Scheme {
  return device.scheme ?? 'https';
}

/**
 * The public side of a web or service device. `host_header` is sent as written; without it the
 * Host is `target_value`, with the port when it is not the scheme's default, as a browser would
 * send it (RFC 9110, "Host and :authority").
 */
export function publicName(device: Device): PublicName {
  if (device.host_header !== null && device.host_header !== '') {
    const { name } = splitHostHeader(device.host_header);
    return { name, servername: isIP(name) === 0 ? name : undefined, hostHeader: device.host_header };
  }
  const name = device.target_value;
  const literal = isIP(name) !== 0;
  const host = isIP(name) === 6 ? `[${name}]` : name;
  const port = device.port === DEFAULT_PORTS[publicScheme(device)] ? '' : `:${device.port}`;
  return { name, servername: literal ? undefined : name, hostHeader: `${host}${port}` };
}

/**
 * The public endpoint for a probe speaking `scheme`: the device's port when that is the device's
 * own scheme (or the device is not web), else the scheme's default port, so that `public_http`
 * on an https device asks port 80 rather than speaking plain HTTP to 443.
 */
export function publicEndpoint(device: Device, scheme: Scheme): Endpoint {
  const own = device.service_type !== 'web' || publicScheme(device) === scheme;
  return { host: device.target_value, port: own ? device.port : DEFAULT_PORTS[scheme], scheme };
}

/**
 * The origin endpoint for a probe speaking `scheme`, or null when the device names no origin.
 * `origin_port` applies to `origin_scheme`; the other scheme gets its default port.
 */
export function originEndpoint(device: Device, scheme: Scheme): Endpoint | null {
  if (device.origin_host === null || device.origin_host === '') return null;
  const originScheme = device.origin_scheme ?? publicScheme(device);
  const port = originScheme === scheme ? (device.origin_port ?? DEFAULT_PORTS[scheme]) : DEFAULT_PORTS[scheme];
  return { host: device.origin_host, port, scheme };
}

/** The origin's own scheme: `origin_scheme`, else the device's. */
export function originScheme(device: Device): Scheme {
  return device.origin_scheme ?? publicScheme(device);
}
