import type { IncomingMessage, ServerResponse } from 'node:http';
import { protocolErrors } from '../core/http/protocol-errors.ts';
import { writeToResponse } from './protocol-errors.ts';

/**
 * The requests a server is still answering, so that a shutdown whose deadline has come can answer
 * each of them `500 server_error` before the process exits, rather than drop the connection: a
 * client left without an answer cannot tell whether its create was applied, one given a 500 knows
 * to retry (a retried create answers 409 with `existing_id` if it was).
 */
export class AnswersInFlight {
  readonly #open = new Map<ServerResponse, IncomingMessage>();

  track(req: IncomingMessage, res: ServerResponse): void {
    this.#open.set(res, req);
    res.once('close', () => this.#open.delete(res));
  }

  get size(): number {
    return this.#open.size;
  }

  /**
   * Answers every request still owed an answer with 500, closing its connection, and resolves
   * once those answers are written out (or their connections gone). A streamed list already
   * under way cannot change its status: its connection is cut, which the client sees as an
   * incomplete answer.
   */
  async answerAllWithServerError(): Promise<number> {
    const written: Promise<void>[] = [];
    for (const [res, req] of this.#open) {
      if (res.headersSent) {
        res.destroy();
        continue;
      }
      written.push(new Promise<void>((resolve) => {
        res.once('finish', resolve);
        res.once('close', resolve);
      }));
      writeToResponse(req, res, protocolErrors.shutdownDeadline());
      // The request's own handler may still finish, and its answer must not follow this one onto
      // the connection (nor throw because headers were sent): what it writes now goes nowhere.
      Object.assign(res, { writeHead: () => res, write: () => true, end: () => res });
    }
    await Promise.all(written);
    return written.length;
  }
}
