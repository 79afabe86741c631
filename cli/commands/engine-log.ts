import type { EngineLogger } from '../../engine/index.ts';

/**
 * The engine's log on the command line: JSON lines, information on stdout beside the request
 * log, warnings and failures on stderr, as the server's own log does.
 */
export function jsonEngineLogger(
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): EngineLogger {
  const line = (level: string, message: string, fields?: Record<string, unknown>) =>
    `${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`;
  return {
    info: (message, fields) => void out.write(line('info', message, fields)),
    warn: (message, fields) => void err.write(line('warn', message, fields)),
    error(message, error) {
      const failure =
        error instanceof Error
          ? { name: error.name, message: error.message, stack: error.stack }
          : { message: String(error) };
      err.write(line('error', message, { error: failure }));
    },
  };
}
