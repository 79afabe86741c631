import type { EngineLogger } from '../../engine/index.ts';
import { logs, type LogLevel } from '../log-level.ts';

/**
 * The engine's log on the command line: JSON lines, debug and information on stdout beside the
 * request log, warnings and failures on stderr, as the server's own log does. Levels below
 * `level` are not written (a method left out costs the engine nothing).
 */
export function jsonEngineLogger(
  level: LogLevel = 'info',
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): EngineLogger {
  const line = (level: string, message: string, fields?: Record<string, unknown>) =>
    `${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`;
  type Write = (message: string, fields?: Record<string, unknown>) => void;
  const to =
    (stream: NodeJS.WritableStream, at: LogLevel): Write =>
    (message, fields) =>
      void stream.write(line(at, message, fields));
  return {
    ...(logs(level, 'debug') ? { debug: to(out, 'debug') } : {}),
    ...(logs(level, 'info') ? { info: to(out, 'info') } : {}),
    ...(logs(level, 'warn') ? { warn: to(err, 'warn') } : {}),
    error(message, error) {
      const failure =
        error instanceof Error
          ? { name: error.name, message: error.message, stack: error.stack }
          : { message: String(error) };
      err.write(line('error', message, { error: failure }));
    },
  };
}
