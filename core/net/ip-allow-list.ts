/** The per-key IP allow-list of docs/contract.md §7. */
import { createIpMatcher } from './ip-matcher.ts';

/**
 * A predicate for the client address of a request. An empty list means "no restriction", so it
 * allows everything, even a request whose address is unknown (null); a non-empty list allows only
 * the addresses and blocks listed, and never an unknown address. Throws TypeError on an invalid
 * entry (see createIpMatcher).
 */
export function ipAllowList(entries: readonly string[]): (clientIp: string | null) => boolean {
  if (entries.length === 0) return () => true;
  const matcher = createIpMatcher(entries);
  return (clientIp) => matcher.matches(clientIp);
}
