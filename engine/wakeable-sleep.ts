/** A wait of a service's loop that its `stop()` can end at once. */
export interface WakeableSleep {
  /** Resolves after `ms`, or as soon as `wake()` is called, whichever comes first. */
  sleep(ms: number): Promise<void>;
  /** Ends the sleep under way, if there is one. */
  wake(): void;
}

/**
 * The sleep between the turns of a loop that polls (the claim loop, a periodic job, the webhook
 * dispatcher): a stopping service wakes it instead of waiting out its poll interval.
 */
export function wakeableSleep(): WakeableSleep {
  let wake: (() => void) | undefined;
  return {
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      }),
    wake: () => wake?.(),
  };
}
