import { setTimeout as delay } from 'node:timers/promises';
import { HANG_GUARD_MS } from './hang-guard.ts';

/**
 * Waits in real time until `until()` holds, asking every `everyMs`. It fails only once the hang
 * guard has passed, since a wait that succeeds ends at once: how long the condition takes to hold
 * depends on how busy the machine is, and is never what a test checks. `what` names what was
 * awaited in the failure; as a function it is asked then, so it can say what the state had come to.
 */
export async function waitFor(
  what: string | (() => string),
  until: () => Promise<boolean> | boolean,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + HANG_GUARD_MS;
  while (!(await until())) {
    if (Date.now() > deadline) {
      throw new Error(`still waiting after ${HANG_GUARD_MS} ms for ${typeof what === 'string' ? what : what()}`);
    }
    await delay(everyMs);
  }
}
