import { text, type FlagValues } from './flags.ts';
import { UsageError } from './usage-error.ts';

/** `--log-level`, most to least said; a level writes its own lines and those of the levels after it. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `--log-level debug|info|warn|error`, info when not given. */
export function readLogLevel(flags: FlagValues): LogLevel {
  const value = text(flags, 'log-level');
  if (value === undefined) return 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(value)) {
    throw new UsageError(`--log-level must be debug, info, warn or error, not "${value}"`);
  }
  return value as LogLevel;
}

/** Whether a line of `level` is written under `threshold`. */
export function logs(threshold: LogLevel, level: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}
