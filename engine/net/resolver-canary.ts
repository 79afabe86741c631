import { promises as dns } from 'node:dns';
import type { DnsHealth } from '../dnsbl/dns-health.ts';

/** What the canary needs of a resolver: node:dns's `Resolver` is one. */
export interface CanaryResolver {
  resolveNs(name: string): Promise<string[]>;
  /** Ends the queries in flight (they reject with `ECANCELLED`): the canary's own, past its deadline. */
  cancel(): void;
}

/** The failures that say no reply came: anything else (NXDOMAIN, SERVFAIL, REFUSED, ...) is a reply. */
const NO_REPLY = new Set(['ETIMEOUT', 'ECONNREFUSED', 'ECANCELLED']);

/**
 * A resolver of its own on the servers the engine's lookups go to: the given ones, or the
 * system's (`/etc/resolv.conf`, what `dns.getServers()` lists). Never a server of our choosing.
 */
export function createCanaryResolver(servers: readonly string[], timeoutMs: number): dns.Resolver {
  // The canary has half a lookup's deadline; c-ares sends it again half-way through that.
  const resolver = new dns.Resolver({ timeout: Math.max(1, Math.ceil(timeoutMs / 4)), tries: 2 });
  if (servers.length > 0) resolver.setServers([...servers]);
  return resolver;
}

/**
 * Tells a silent resolver from a silent name (docs/engine.md, "Our failures are not the
 * target's"). A lookup that gets no answer may be the name's (its own servers are away) or the
 * resolver's; counting it against the target before that is known would move a device towards
 * `down` because the worker's resolver stopped. So before such a lookup counts, the same servers
 * are asked the root zone's NS records, a question every working resolver answers at once from
 * its cache. Any reply (NXDOMAIN, SERVFAIL and REFUSED included) says the servers are there and
 * the silence was the name's; no reply within the deadline starts the outage in `DnsHealth` at
 * once, and the lookup fails with `resolver_unavailable`.
 *
 * One canary is in flight at a time: the lookups left unanswered together share it. None is sent
 * for a lookup the servers answered anything during (the silence is then the name's), nor while
 * the servers are already known to be down.
 */
export class ResolverCanary {
  readonly #resolver: CanaryResolver;
  readonly #health: DnsHealth;
  #asking: Promise<void> | undefined;

  constructor(resolver: CanaryResolver, health: DnsHealth) {
    this.#resolver = resolver;
    this.#health = health;
  }

  /**
   * A lookup sent at `mark` (`DnsHealth.sent()`) has had no answer: half-way through its deadline
   * (the canary then ends when the lookup's deadline does) or at its end. Resolves once known,
   * within `timeoutMs`; `DnsHealth.down` then says whether the servers are down.
   */
  check(mark: number, timeoutMs: number): Promise<void> {
    if (this.#health.down || mark !== this.#health.sent()) return Promise.resolve();
    this.#asking ??= this.#ask(timeoutMs).finally(() => (this.#asking = undefined));
    return this.#asking;
  }

  async #ask(timeoutMs: number): Promise<void> {
    const mark = this.#health.sent();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const asked = this.#resolver.resolveNs('.').then(
      () => null,
      (error: unknown) => {
        const code = (error as { code?: unknown }).code;
        return typeof code === 'string' && NO_REPLY.has(code) ? (code === 'ETIMEOUT' ? 'timeout' : code) : null;
      },
    );
    const silence = await Promise.race([asked, deadline]);
    clearTimeout(timer);
    if (silence === null) return this.#health.answered();
    // Past the deadline c-ares would go on sending it: the canary is the resolver's only query.
    if (silence === 'timeout') this.#resolver.cancel();
    this.#health.outage(mark, silence);
  }
}
