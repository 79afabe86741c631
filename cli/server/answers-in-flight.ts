import type { ServerResponse } from 'node:http';
import { protocolErrors } from '../../core/http/protocol-errors.ts';
import { writeToResponse } from './protocol-errors.ts';

/** Where a tracked response sits in AnswersInFlight's array, kept on the response itself. */
const SLOT = Symbol('answers in flight: slot');
type Tracked = ServerResponse & { [SLOT]?: number };

/**
 * The requests a server is still answering, so that a shutdown whose deadline has come can answer
 * each of them `500 server_error` before the process exits, rather than drop the connection: a
 * client left without an answer cannot tell whether its create was applied, one given a 500 knows
 * to retry (a retried create answers 409 with `existing_id` if it was).
 *
 * An array with swap-removal, not a Map: a Map that gains and loses an entry per request leaves a
 * chain of superseded hash tables, each pointing at the next, and once one of them has been
 * promoted to the old generation every later table and the requests in it survive each young
 * collection until a full one. Under 32 concurrent creates that promoted about 1 MB per young
 * collection and tripled its pause; the array holds only the responses still open.
 */
export class AnswersInFlight {
  readonly #open: Tracked[] = [];
  /**
   * One listener for every response (an emitter calls it with the response as `this`), rather
   * than a closure and `once`'s wrapper made per request. 'close' comes once; #forget ignores a
   * response it no longer holds.
   */
  readonly #onClose: (this: Tracked) => void;

  constructor() {
    const forget = (res: Tracked) => this.#forget(res);
    this.#onClose = function onClose(this: Tracked) {
      forget(this);
    };
  }

  track(res: ServerResponse): void {
    const tracked = res as Tracked;
    tracked[SLOT] = this.#open.push(tracked) - 1;
    res.on('close', this.#onClose);
  }

  #forget(res: Tracked): void {
    const slot = res[SLOT];
    if (slot === undefined) return;
    res[SLOT] = undefined;
    const last = this.#open.pop()!;
    if (last !== res) {
      this.#open[slot] = last;
      last[SLOT] = slot;
    }
  }

  get size(): number {
    return this.#open.length;
  }

  /**
   * Answers every request still owed an answer with 500, closing its connection, and resolves
   * once those answers are written out (or their connections gone). A streamed list already
   * under way cannot change its status: its connection is cut, which the client sees as an
   * incomplete answer.
   */
  async answerAllWithServerError(): Promise<number> {
    const written: Promise<void>[] = [];
    // A copy: answering closes responses, which takes them out of #open meanwhile.
    for (const res of [...this.#open]) {
      if (res.headersSent) {
        res.destroy();
        continue;
      }
      written.push(
        new Promise<void>((resolve) => {
          res.once('finish', resolve);
          res.once('close', resolve);
        }),
      );
      writeToResponse(res.req, res, protocolErrors.shutdownDeadline());
      // The request's own handler may still finish, and its answer must not follow this one onto
      // the connection (nor throw because headers were sent): what it writes now goes nowhere.
      Object.assign(res, { writeHead: () => res, write: () => true, end: () => res });
    }
    await Promise.all(written);
    return written.length;
  }
}
