import { setTimeout as delay } from 'node:timers/promises';

/**
 * Waits in real time until `until()` holds, asking every `everyMs`; fails after `timeoutMs`,
 * which is generous because a wait that succeeds ends at once. `what` names what was awaited in
 * the failure; as a function it is asked then, so it can say what the state had come to.
 */
export async function waitFor(
  what: string | (() => string),
  until: () => Promise<boolean> | boolean,
  timeoutMs = 30_000,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await until())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    }
    await delay(everyMs);
  }
}
