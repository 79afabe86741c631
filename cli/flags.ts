import { parseArgs } from 'node:util';
import { normalizeCidr } from '../core/net/ip-matcher.ts';
import { SCOPES, type RateLimitRule, type Scope } from '../core/index.ts';
import type { CliIo } from './io.ts';
import { UsageError } from './usage-error.ts';

type FlagSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;
export type FlagValues = Record<string, string | boolean | string[] | undefined>;

/** parseArgs speaks in paragraphs; the contract wants one line naming what is wrong. */
function describeParseError(error: unknown, command: string): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const option = /'(-[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option !== undefined) return `unknown flag ${option} for ${command}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option !== undefined) {
    return /does not take/.test(message) ? `${option} takes no value` : `${option} needs a value`;
  }
  const argument = /'([^']*)'/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && argument !== undefined)
    return `unexpected argument "${argument}" for ${command}`;
  return message.split('\n')[0]!;
}

/**
 * Strict flag parsing: an unknown flag, a missing value, a stray argument or a single-value flag
 * given twice (which parseArgs would silently settle by taking the last) is a UsageError.
 */
export function readFlags(
  args: readonly string[],
  spec: FlagSpec,
  command: string,
  positionals = 0,
): { flags: FlagValues; positionals: string[] } {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...args],
      options: spec,
      strict: true,
      allowPositionals: positionals > 0,
      tokens: true,
    });
  } catch (error) {
    throw new UsageError(describeParseError(error, command));
  }
  if (parsed.positionals.length > positionals) {
    throw new UsageError(`unexpected argument "${parsed.positionals[positionals]}" for ${command}`);
  }
  const seen = new Set<string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option' || spec[token.name]?.multiple === true) continue;
    if (seen.has(token.name)) throw new UsageError(`--${token.name} is given more than once`);
    seen.add(token.name);
  }
  return { flags: parsed.values as FlagValues, positionals: parsed.positionals };
}

export function text(flags: FlagValues, name: string): string | undefined {
  const value = flags[name];
  return typeof value === 'string' ? value : undefined;
}

export function list(flags: FlagValues, name: string): string[] {
  const value = flags[name];
  return Array.isArray(value) ? value : [];
}

/** An environment variable; set but empty counts as unset, as shells and compose files mean it. */
export function env(variables: CliIo['env'], name: string): string | undefined {
  const value = variables[name];
  return value === undefined || value === '' ? undefined : value;
}

export function positiveInt(value: string, what: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^[0-9]+$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new UsageError(`${what} must be an integer from 1 to ${max}, not "${value}"`);
  }
  return Number(value);
}

/** 0 asks the system for a free port; the `listening on` line then says which one it gave. */
export function port(value: string, what = '--port'): number {
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) > 65535)
    throw new UsageError(`${what} must be from 0 to 65535, not "${value}"`);
  return Number(value);
}

/** `HOST:PORT` (`[V6]:PORT` for IPv6) of a listener; port 0 takes any free port. */
export function hostPort(value: string, what: string): { host: string; port: number } {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+)):([0-9]{1,5})$/.exec(value);
  if (match === null || Number(match[3]) > 65535) {
    throw new UsageError(`${what} must be HOST:PORT (an IPv6 address in brackets), not "${value}"`);
  }
  return { host: match[1] ?? match[2]!, port: Number(match[3]) };
}

/** `N/S`: N requests per S seconds, both positive integers. */
export function rateLimit(value: string, what = '--rate-limit'): RateLimitRule {
  const match = /^([0-9]{1,15})\/([0-9]{1,15})$/.exec(value);
  const limit = Number(match?.[1]);
  const windowSeconds = Number(match?.[2]);
  if (match === null || limit < 1 || windowSeconds < 1) {
    throw new UsageError(`${what} must be N/S (N requests per S seconds, positive integers), not "${value}"`);
  }
  return { limit, windowSeconds };
}

export function scopes(value: string): Scope[] {
  const given = value.split(',').map((s) => s.trim());
  if (given.some((s) => !(SCOPES as readonly string[]).includes(s))) {
    throw new UsageError(`--scopes must be read, write or read,write, not "${value}"`);
  }
  return [...new Set(given)] as Scope[];
}

export function cidrs(values: string[], flag: string): string[] {
  return values.map((value) => {
    const normalized = normalizeCidr(value);
    if (normalized === null) throw new UsageError(`${flag} must be an IP address or CIDR block, not "${value}"`);
    return normalized;
  });
}

/** A date, or a date and time with its offset: without one the moment would depend on the machine. */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

/** Whether the fields name a real moment: Date.parse rolls 2027-02-30 over to March instead. */
function isRealDate(fields: (string | undefined)[]): boolean {
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, offsetHours = 0, offsetMinutes = 0] =
    fields.map((f) => Number(f ?? 0));
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHours <= 23 &&
    offsetMinutes <= 59
  );
}

export function futureDate(value: string, now: number): string {
  const match = ISO.exec(value);
  const ms = Date.parse(value);
  if (match === null || Number.isNaN(ms) || !isRealDate(match.slice(1))) {
    throw new UsageError(
      `--expires must be an ISO 8601 date such as 2027-01-31 or 2027-01-31T00:00:00Z, not "${value}"`,
    );
  }
  if (ms <= now) throw new UsageError(`--expires must be in the future, not "${value}"`);
  return new Date(ms).toISOString();
}
