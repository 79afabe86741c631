import { parseArgs } from 'node:util';
import { normalizeCidr } from '../core/net/ip-matcher.ts';
import { SCOPES, type RateLimitRule, type Scope } from '../core/index.ts';
import { UsageError } from './usage-error.ts';

type FlagSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;
type FlagValues = Record<string, string | boolean | string[] | undefined>;

/** Strict flag parsing: an unknown flag, a missing value or a stray argument is a UsageError. */
export function readFlags(args: readonly string[], spec: FlagSpec, positionals = 0): { flags: FlagValues; positionals: string[] } {
  let parsed: { values: FlagValues; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...args], options: spec, strict: true, allowPositionals: positionals > 0 }) as typeof parsed;
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]!.replace(/\. To specify.*$/, ''));
  }
  if (parsed.positionals.length > positionals) throw new UsageError(`unexpected argument: ${parsed.positionals[positionals]}`);
  return { flags: parsed.values, positionals: parsed.positionals };
}

export function text(flags: FlagValues, name: string): string | undefined {
  const value = flags[name];
  return typeof value === 'string' ? value : undefined;
}

export function list(flags: FlagValues, name: string): string[] {
  const value = flags[name];
  return Array.isArray(value) ? value : [];
}

export function positiveInt(value: string, what: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^[0-9]+$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new UsageError(`${what} must be an integer from 1 to ${max}, not "${value}"`);
  }
  return Number(value);
}

export function port(value: string): number {
  if (!/^[0-9]+$/.test(value) || Number(value) > 65535) throw new UsageError(`--port must be from 0 to 65535, not "${value}"`);
  return Number(value);
}

/** `N/S`: N requests per S seconds, both positive integers. */
export function rateLimit(value: string): RateLimitRule {
  const match = /^([0-9]+)\/([0-9]+)$/.exec(value);
  if (!match || Number(match[1]) < 1 || Number(match[2]) < 1 || !Number.isSafeInteger(Number(match[1])) || !Number.isSafeInteger(Number(match[2]))) {
    throw new UsageError(`--rate-limit must be N/S (requests per seconds, positive integers), not "${value}"`);
  }
  return { limit: Number(match[1]), windowSeconds: Number(match[2]) };
}

export function scopes(value: string): Scope[] {
  const given = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (given.length === 0 || given.some((s) => !(SCOPES as readonly string[]).includes(s))) {
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

const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

export function futureDate(value: string, now: number): string {
  const ms = Date.parse(value);
  if (!ISO.test(value) || Number.isNaN(ms)) throw new UsageError(`--expires must be an ISO 8601 date such as 2027-01-31T00:00:00Z, not "${value}"`);
  if (ms <= now) throw new UsageError(`--expires must be in the future, not "${value}"`);
  return new Date(ms).toISOString();
}
