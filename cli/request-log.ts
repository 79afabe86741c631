import type { Logger } from '../core/index.ts';

/**
 * The server's log: one JSON line per request on stdout (the core never hands it the
 * Authorization header), failures and warnings as JSON lines on stderr. Stacks go to the log, not
 * to clients.
 */
export function jsonLogger(out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Logger {
  return {
    request(entry) {
      out.write(`${JSON.stringify(entry)}\n`);
    },
    error(message, error, requestId) {
      const failure = error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : { message: String(error) };
      err.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'error', message, request_id: requestId, error: failure })}\n`);
    },
    warn(message) {
      err.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'warn', message })}\n`);
    },
  };
}
