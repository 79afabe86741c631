import { canonicalIp } from '../../core/internal.ts';

/**
 * A `--dns-server` value, `HOST[:PORT]`, in the form node:dns's `setServers` takes (`1.2.3.4`,
 * `1.2.3.4:5353`, `::1`, `[::1]:5353`), or null when it is not one. HOST must be an IP address:
 * the server that answers names cannot itself be found by name.
 */
export function normalizeDnsServer(input: string): string | null {
  let host = input;
  let port: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::([0-9]{1,5}))?$/.exec(input);
  if (bracketed !== null) {
    host = bracketed[1]!;
    port = bracketed[2];
  } else if (/^[0-9.]+:[0-9]{1,5}$/.test(input)) {
    [host, port] = input.split(':') as [string, string];
  }
  const ip = canonicalIp(host);
  if (ip === null) return null;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return null;
  const v6 = ip.includes(':');
  if (port === undefined) return ip;
  return v6 ? `[${ip}]:${Number(port)}` : `${ip}:${Number(port)}`;
}

/** Normalises a list of servers; throws a RangeError naming the first bad one. */
export function normalizeDnsServers(servers: readonly string[]): string[] {
  return servers.map((server) => {
    const normalized = normalizeDnsServer(server);
    if (normalized === null)
      throw new RangeError(`--dns-server must be an IP address with an optional port (HOST[:PORT]), not "${server}"`);
    return normalized;
  });
}
