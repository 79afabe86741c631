import {
  RepeatedErrorLog,
  type Clock,
  type Logger,
  type RepeatedError,
  type RequestLogEntry,
} from '../../core/internal.ts';
import { logs, type LogLevel } from '../log-level.ts';

const text = JSON.stringify;

/** A number as JSON writes it: its shortest text, or null when it is not finite. */
const number = (value: number) => (Number.isFinite(value) ? `${value}` : 'null');

/**
 * `JSON.stringify(entry)`, field by field: serialising strings and numbers directly skips the
 * generic walk over the object, which was a tenth of the server's own CPU on GET /v1/me. Numbers
 * are written as text without JSON.stringify's entry (a sixth of the line's cost in a loop).
 */
export function requestLine(entry: RequestLogEntry): string {
  const ip = entry.client_ip === null ? 'null' : text(entry.client_ip);
  const code = entry.code === undefined ? '' : `,"code":${text(entry.code)}`;
  const key = entry.key_id === null ? 'null' : number(entry.key_id);
  return (
    `{"time":${text(entry.time)},"request_id":${text(entry.request_id)},"method":${text(entry.method)},` +
    `"path":${text(entry.path)},"status":${number(entry.status)},"duration_ms":${number(entry.duration_ms)},` +
    `"client_ip":${ip},"key_id":${key}${code}}`
  );
}

export interface ServerLogger extends Logger {
  /**
   * Writes out what is buffered, and how often errors repeated; call before exiting. Resolves once
   * the output has taken every request line written so far (a pipe whose reader is behind holds
   * them a while; a process that exits meanwhile loses them).
   */
  flush(): Promise<void>;
}

export interface JsonLoggerOptions {
  /** A failure that repeats is written once in full, then counted: one line per interval (10 s). */
  errorIntervalMs?: number;
  clock?: Clock;
  /** How long request lines are gathered before they are written together (default 20 ms). */
  requestFlushMs?: number;
  /** Gathered lines are written at once when they reach this many characters (default 64 KiB). */
  requestFlushChars?: number;
  /** Request lines are info, warnings warn: below `level` they are not written (default info). */
  level?: LogLevel;
}

/** See JsonLoggerOptions: at most this late, and in writes of at most about this size. */
export const REQUEST_LOG_FLUSH = { ms: 20, chars: 64 * 1024 } as const;

function errorLine({ message, error, requestId, repeats }: RepeatedError): string {
  const failure =
    error instanceof Error
      ? { name: error.name, message: error.message, ...(repeats === 0 ? { stack: error.stack } : {}) }
      : { message: String(error) };
  const line =
    repeats === 0
      ? { time: new Date().toISOString(), level: 'error', message, request_id: requestId, error: failure }
      : {
          time: new Date().toISOString(),
          level: 'error',
          message: `${message} (${repeats} more like this since the last line)`,
          repeated: repeats,
          error: failure,
        };
  return `${JSON.stringify(line)}\n`;
}

/**
 * The server's log: one JSON line per request on stdout (the core never hands it the
 * Authorization header), failures and warnings as JSON lines on stderr. Stacks go to the log, not
 * to clients, once per kind of failure (see RepeatedErrorLog).
 *
 * Request lines are gathered for up to 20 ms (or 64 KiB) and written together: a write to stdout
 * is a system call, and written once per turn of the event loop, as they were, creates on
 * PostgreSQL still made about one write for every two or three requests, since their answers
 * arrive in turns of their own. `flush()` writes what is gathered; the server calls it before it
 * exits, whatever the reason (see serve), and on a graceful stop waits a moment for the output to
 * take it, so only a process killed outright, or one whose log reader stopped reading, loses its
 * last lines.
 */
export function jsonLogger(
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
  options: JsonLoggerOptions = {},
): ServerLogger {
  const errors = new RepeatedErrorLog({
    write: (entry) => err.write(errorLine(entry)),
    ...(options.errorIntervalMs === undefined ? {} : { intervalMs: options.errorIntervalMs }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const flushMs = options.requestFlushMs ?? REQUEST_LOG_FLUSH.ms;
  const flushChars = options.requestFlushChars ?? REQUEST_LOG_FLUSH.chars;
  const level = options.level ?? 'info';
  const requests = logs(level, 'info');
  const warnings = logs(level, 'warn');
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  /** Settles once the output has taken the last write, and so every one before it. */
  let written = Promise.resolve();
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending === '') return;
    const text = pending;
    pending = '';
    written = new Promise((resolve) => out.write(text, () => resolve()));
  };
  return {
    request(entry) {
      if (!requests) return;
      pending += `${requestLine(entry)}\n`;
      if (pending.length >= flushChars) flush();
      // Unreferenced: gathered lines never keep a server alive, and its exit writes them.
      else timer ??= setTimeout(flush, flushMs).unref();
    },
    error(message, error, requestId) {
      errors.report(message, error, requestId);
    },
    warn(message) {
      if (!warnings) return;
      err.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'warn', message })}\n`);
    },
    flush() {
      flush();
      errors.close();
      return written;
    },
  };
}
