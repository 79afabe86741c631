/**
 * The `error`s of a check that failed on the worker's side, not the target's (docs/engine.md,
 * "Our failures are not the target's"): the worker's resolver is unreachable or fails for every
 * name, its outbound policy refuses the target, or it was too busy to finish the check before
 * its lease ran out. Such a check never moves a record towards `down` or `listed`, announces
 * nothing, and is made again after the retry delay rather than the record's interval.
 */
export const RESOLVER_UNAVAILABLE = 'resolver_unavailable';
export const REFUSED_BY_POLICY = 'refused_by_policy';
export const WORKER_OVERLOADED = 'worker_overloaded';

const OURS = new Set<string | null>([RESOLVER_UNAVAILABLE, REFUSED_BY_POLICY, WORKER_OVERLOADED]);

/** Whether a result's error is the worker's own failure. */
export function isOurFailure(error: string | null): boolean {
  return OURS.has(error);
}

/**
 * The lookup failures that may be the resolver's rather than the name's: no answer (a timeout,
 * a refused connection, the system resolver's EAI_AGAIN) or a server failure. One of them says
 * little; the same for several names in a row, with no answer between, is the resolver.
 */
export const RESOLVER_FAILURE_CODES: ReadonlySet<string> = new Set([
  'ETIMEOUT',
  'ECONNREFUSED',
  'ECANCELLED',
  'EAI_AGAIN',
  'ESERVFAIL',
  'EREFUSED',
  'timeout',
]);

/**
 * The lookup failure that is the resolver's whatever the name: nothing listens where it should
 * (c-ares reports the port unreachable as a refused connection). No name can be the cause.
 */
export const RESOLVER_UNREACHABLE = 'ECONNREFUSED';
