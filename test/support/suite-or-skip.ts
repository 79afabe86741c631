import { describe, it } from 'node:test';

/**
 * `describe(title, options, fn)`, or, when the suite cannot run here (`skip` is the reason: a
 * service that is not reachable), one skipped test in its place. Node's runner counts a skipped
 * `describe` nowhere in its closing summary ("skipped 0"), so a suite that never ran looked like
 * one that passed; a skipped test is counted there, with its reason on its own line. Under
 * CI=true the helpers that find a service missing throw instead, so nothing is skipped at all.
 */
export function suiteOrSkip(
  title: string,
  skip: string | false | undefined,
  options: { concurrency?: number | boolean },
  fn: () => void,
): void {
  if (typeof skip === 'string') {
    it(`${title} (skipped)`, { skip }, () => {});
    return;
  }
  describe(title, options, fn);
}
