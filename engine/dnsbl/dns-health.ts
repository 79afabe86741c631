import type { Clock } from '../../core/index.ts';
import type { EngineLogger } from '../logger.ts';

/** Lookups in a row that got no answer before the servers count as down. */
const SILENT_LOOKUPS_FOR_OUTAGE = 3;

/**
 * Whether the DNS servers answer, told once per outage. One silent lookup may be one slow zone;
 * several in a row with no answer between them is the server. The warning goes out once when the
 * outage starts and an info line once when any answer comes back: a dead server behind thousands
 * of checks must not write thousands of lines. DNSBL lookups and device name lookups report to
 * the same one, and while it is `down` their failures are `resolver_unavailable`
 * (engine/our-failures.ts).
 */
export class DnsHealth {
  readonly #servers: string;
  readonly #logger: EngineLogger;
  readonly #clock: Clock;
  #silentInARow = 0;
  #downSince: number | null = null;
  /** Answers so far: a lookup's mark, compared when it times out. */
  #answers = 0;

  constructor(servers: string, logger: EngineLogger, clock: Clock) {
    this.#servers = servers;
    this.#logger = logger;
    this.#clock = clock;
  }

  get down(): boolean {
    return this.#downSince !== null;
  }

  /** Call as a lookup is sent; hand what it returns to `silent` if the lookup gets no answer. */
  sent(): number {
    return this.#answers;
  }

  /** Any reply, NXDOMAIN and SERVFAIL included: the server is there. */
  answered(): void {
    this.#answers++;
    this.#silentInARow = 0;
    if (this.#downSince === null) return;
    const seconds = Math.round((this.#clock.now() - this.#downSince) / 1000);
    this.#downSince = null;
    this.#logger.info?.(`DNS server ${this.#servers} answers again`, { dns_servers: this.#servers, outage_s: seconds });
  }

  /**
   * A lookup that timed out or was refused at the transport (the server is not listening).
   * `mark` is what `sent()` said when it went out: a lookup the server answered others during
   * (one sent in an outage, timing out just after the server came back) says nothing about the
   * server now, and counting it would log a second outage a moment after the recovery.
   * `error` is how the lookup failed (`timeout`, `ECONNREFUSED`, ...): the warning names the one
   * that started the outage.
   */
  silent(mark: number, error: string): void {
    if (mark !== this.#answers) return;
    this.#silentInARow++;
    if (this.#downSince !== null || this.#silentInARow < SILENT_LOOKUPS_FOR_OUTAGE) return;
    this.#downSince = this.#clock.now();
    this.#logger.warn?.(
      `DNS server ${this.#servers} does not answer (${error}): lookups fail with resolver_unavailable until it does`,
      { dns_servers: this.#servers, error },
    );
  }
}
