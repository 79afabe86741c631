import type { EngineLogger } from '../logger.ts';

/** Records named one by one in the log before the rest are only counted in the summary. */
const NAMED_RECORDS = 100;

/**
 * Tells the operator that this worker's target policy refuses what the records need: the API
 * accepted them (run with `--allow-private-targets`) and this worker was started without it, or
 * a name now resolves to an address the policy refuses. Said once in full, then once per record,
 * for the first hundred records: the fix is the same for all of them.
 */
export class PolicyRefusals {
  readonly #logger: EngineLogger;
  readonly #allowPrivate: boolean;
  readonly #named = new Set<number>();

  constructor(logger: EngineLogger, allowPrivate: boolean) {
    this.#logger = logger;
    this.#allowPrivate = allowPrivate;
  }

  refused(deviceId: number): void {
    if (this.#named.has(deviceId) || this.#named.size > NAMED_RECORDS) return;
    if (this.#named.size === 0) {
      const message = this.#allowPrivate
        ? "this worker's target policy refuses a device's target (a special-purpose address): its checks say refused_by_policy"
        : 'this worker refuses private targets (--allow-private-targets is off) and devices need them: their checks say ' +
          'refused_by_policy and change nothing. Run the API and every worker with the same --allow-private-targets';
      this.#logger.warn?.(message, { allow_private_targets: this.#allowPrivate });
    }
    this.#named.add(deviceId);
    if (this.#named.size > NAMED_RECORDS) {
      this.#logger.warn?.(
        `more than ${NAMED_RECORDS} devices refused by this worker's target policy; the rest are not named`,
      );
      return;
    }
    const line = `device ${deviceId}: its target is refused by this worker's target policy (refused_by_policy)`;
    this.#logger.warn?.(line, { device_id: deviceId });
  }
}
