import type { DnsblCode, DnsblZoneInfo } from './catalogue.ts';
import { normalizeZone } from './zones.ts';

/** A return code as zones answer it: a dotted quad in 127.0.0.0/8. */
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const CODE = new RegExp(`^127\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);

const ENTRY_FIELDS = new Set(['name', 'operator', 'delist_url', 'codes', 'bitmask']);
const CODE_FIELDS = new Set(['meaning', 'policy']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown, where: string, max: number): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > max) {
    throw new RangeError(`${where} must be a non-empty string of at most ${max} characters`);
  }
  return value;
}

function url(value: unknown, where: string): string | null {
  if (value === null) return null;
  const given = text(value, where, 2048);
  let parsed: URL;
  try {
    parsed = new URL(given);
  } catch {
    throw new RangeError(`${where} must be an http or https URL, or null`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new RangeError(`${where} must be an http or https URL, or null`);
  }
  return given;
}

function unknownField(value: Record<string, unknown>, known: ReadonlySet<string>, where: string): void {
  const stray = Object.keys(value).find((key) => !known.has(key));
  if (stray !== undefined) {
    throw new RangeError(`${where} has an unknown field "${stray}" (known: ${[...known].join(', ')})`);
  }
}

function code(value: unknown, where: string): DnsblCode {
  if (!isObject(value)) throw new RangeError(`${where} must be an object {"meaning", "policy"}`);
  unknownField(value, CODE_FIELDS, where);
  if (typeof value.policy !== 'boolean') throw new RangeError(`${where}.policy must be true or false`);
  return { meaning: text(value.meaning, `${where}.meaning`, 500), policy: value.policy };
}

function entry(value: unknown, where: string): DnsblZoneInfo {
  if (!isObject(value)) throw new RangeError(`${where} must be an object {"name", "operator", "delist_url", "codes"}`);
  unknownField(value, ENTRY_FIELDS, where);
  if (!isObject(value.codes)) {
    throw new RangeError(
      `${where}.codes must be an object of return codes, e.g. {"127.0.0.2": {"meaning": "...", "policy": false}}`,
    );
  }
  const codes: Record<string, DnsblCode> = {};
  for (const [answer, meaning] of Object.entries(value.codes)) {
    if (!CODE.test(answer)) {
      throw new RangeError(`${where}.codes has "${answer}", which is no return code (an address in 127.0.0.0/8)`);
    }
    codes[answer] = code(meaning, `${where}.codes["${answer}"]`);
  }
  if (value.bitmask !== undefined && typeof value.bitmask !== 'boolean') {
    throw new RangeError(`${where}.bitmask must be true or false`);
  }
  const info: DnsblZoneInfo = {
    name: text(value.name, `${where}.name`, 200),
    operator: text(value.operator, `${where}.operator`, 200),
    delist_url: value.delist_url === undefined ? null : url(value.delist_url, `${where}.delist_url`),
    codes,
  };
  if (value.bitmask === true) info.bitmask = true;
  return info;
}

/**
 * An operator's descriptions of DNSBL zones (`--dnsbl-zone-info`, the engine's `dnsblZoneInfo`),
 * in the catalogue's shape: `{"<zone>": {"name", "operator", "delist_url", "codes": {"<answer>":
 * {"meaning", "policy"}}, "bitmask"?}}`, keyed by each zone's normal form. Throws a RangeError
 * naming the first thing wrong.
 */
export function parseZoneInfo(value: unknown): Record<string, DnsblZoneInfo> {
  if (!isObject(value)) throw new RangeError('the zone descriptions must be a JSON object keyed by zone name');
  const out: Record<string, DnsblZoneInfo> = {};
  for (const [name, description] of Object.entries(value)) {
    const zone = normalizeZone(name);
    if (zone === null) throw new RangeError(`"${name}" is no DNS zone name such as zen.spamhaus.org`);
    out[zone] = entry(description, `"${name}"`);
  }
  return out;
}
