/**
 * Reading and storing targets (docs/contract.md §5): one spelling per host, so that duplicates are found
 * and the target policy sees what will actually be probed.
 */
import { domainToASCII, domainToUnicode } from 'node:url';
import { canonicalIp, isIpLiteral } from '../net/ip-address.ts';
import { isForbiddenName, isPublicIp } from './target-policy.ts';

export type TargetProblem = 'invalid_value' | 'forbidden_target';
export type Normalized = { value: string } | { problem: TargetProblem };

const MAX_NAME_LENGTH = 253;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** ASCII that has no business in a host name; everything non-ASCII is left to IDNA. */
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const FOREIGN_ASCII = /[\u0000-\u002c\u002f\u003a-\u0040\u005b-\u0060\u007b-\u007f]/;
/**
 * A last label that the WHATWG URL parser reads as an IPv4 number ("ends in a number"): all
 * digits, or `0x` hex. A URL built from such a name is refused or, worse, becomes an address.
 */
const NUMERIC_LABEL = /^(?:[0-9]+|0x[0-9a-f]*)$/;

/**
 * The stored (lower-case, ASCII/punycode, no trailing dot) form of a domain name, or null.
 * Nothing is trimmed: surrounding white space makes the value invalid, not different.
 */
export function normalizeDomain(input: string): string | null {
  // domainToASCII is the URL host parser: it would percent-decode, drop tabs and newlines and cut
  // at `/`, `?`, `#` or `\` (`a.com/x` becomes `a.com`), so such input must never reach it.
  if (input.length === 0 || FOREIGN_ASCII.test(input)) return null;
  // Checked before IDNA as well as after: Node's and Bun's domainToASCII read `127.1` as an IPv4
  // address and answer `127.0.0.1`, Deno's passes it through; neither may decide for us.
  if (isIpLiteral(input)) return null;

  // A name already in its stored form is its own IDNA result: UTS #46 maps lower-case ASCII
  // letters, digits, hyphens and dots to themselves, and only an `xn--` label leaves IDNA anything
  // to check. Most creates name such a host, and domainToASCII was the largest single cost of
  // normalising it (docs/performance.md, "What stands between these figures and the targets").
  if (!input.includes('xn--') && hasStoredSyntax(input)) return input;

  // IDNA maps case itself, and differently from toLowerCase (`ẞ` becomes `ss`, not `ß`), so only
  // its ASCII result is lower-cased.
  let name = domainToASCII(input).toLowerCase();
  if (name === '') return null;
  if (name.endsWith('.')) name = name.slice(0, -1);
  // Full-width digits and dots (`１２７。０。０。１`) become an address only after IDNA mapping.
  if (isIpLiteral(name)) return null;
  return hasStoredSyntax(name) && name.split('.').every((label) => !label.startsWith('xn--') || isALabel(label))
    ? name
    : null;
}

/**
 * Whether an `xn--` label is an A-label: Punycode that decodes to a Unicode label which IDNA
 * encodes back to exactly this label (RFC 5891 §5.4). IDNA as Node 24 applies it passes an
 * undecodable `xn--` label through unchanged (Node 22 refused it), so the check is made here.
 */
function isALabel(label: string): boolean {
  const unicode = domainToUnicode(label);
  return unicode !== '' && unicode !== label && domainToASCII(unicode) === label;
}

/**
 * The stored form's syntax: at most 253 characters, two labels or more, each of lower-case
 * letters, digits and inner hyphens, and a last label the URL parser would not read as a number.
 */
function hasStoredSyntax(name: string): boolean {
  if (name.length > MAX_NAME_LENGTH) return false;
  const labels = name.split('.');
  if (labels.length < 2) return false;
  if (!labels.every((label) => LABEL.test(label))) return false;
  return !NUMERIC_LABEL.test(labels[labels.length - 1] ?? '');
}

function applyPolicy(value: string, isIp: boolean, options: { allowPrivateTargets: boolean }): Normalized {
  if (!options.allowPrivateTargets) {
    const forbidden = isIp ? !isPublicIp(value) : isForbiddenName(value);
    if (forbidden) return { problem: 'forbidden_target' };
  }
  return { value };
}

/** A target_value of the given target_type, normalised and held to the target policy. */
export function normalizeTarget(
  type: 'domain' | 'ip',
  input: string,
  options: { allowPrivateTargets: boolean },
): Normalized {
  const value = type === 'ip' ? canonicalIp(input) : normalizeDomain(input);
  if (value === null) return type === 'domain' ? unnamedHost(input, options) : { problem: 'invalid_value' };
  return applyPolicy(value, type === 'ip', options);
}

/**
 * A host that is not a valid domain: `localhost` itself is one label, so the syntax rule would
 * call it invalid, but the contract names it in the target policy, which answers first.
 */
function unnamedHost(input: string, options: { allowPrivateTargets: boolean }): Normalized {
  const bare = input.toLowerCase().replace(/\.$/, '');
  if (!options.allowPrivateTargets && bare === 'localhost') return { problem: 'forbidden_target' };
  return { problem: 'invalid_value' };
}

/**
 * An origin_host: an IP address (strict) or a domain, told apart by whether it parses as an
 * address. Loose address forms (`127.1`) and bracketed IPv6 are neither, hence invalid.
 */
export function normalizeHost(input: string, options: { allowPrivateTargets: boolean }): Normalized {
  const ip = canonicalIp(input);
  if (ip !== null) return applyPolicy(ip, true, options);
  const domain = normalizeDomain(input);
  if (domain === null) return unnamedHost(input, options);
  return applyPolicy(domain, false, options);
}

const HOST_LABEL = /^[A-Za-z0-9-]{1,63}$/;
const PORT = /^[1-9][0-9]{0,4}$/;
const MAX_PORT = 65535;

function isValidHostName(name: string): boolean {
  const bare = name.endsWith('.') ? name.slice(0, -1) : name;
  if (bare.length === 0 || bare.length > MAX_NAME_LENGTH) return false;
  const labels = bare.split('.');
  if (!labels.every((label) => HOST_LABEL.test(label))) return false;
  // A name ending in a number is read as an IPv4 address by HTTP clients, so it must be one.
  const last = labels[labels.length - 1] ?? '';
  return /^[0-9]+$/.test(last) ? canonicalIp(bare) === bare && bare === name : true;
}

/**
 * Whether a value may be sent as an HTTP Host header (RFC 9110 `uri-host [ ":" port ]`): a host
 * name, a strict IPv4 dotted quad, or a bracketed IPv6 address, each with an optional port.
 * Nothing is normalised: the header is sent as the user wrote it.
 */
export function isValidHostHeader(input: string): boolean {
  let host = input;
  if (input.startsWith('[')) {
    const close = input.indexOf(']');
    if (close === -1) return false;
    const rest = input.slice(close + 1);
    if (rest !== '' && !isValidPortSuffix(rest)) return false;
    const inner = input.slice(1, close);
    return inner.includes(':') && canonicalIp(inner) !== null;
  }
  const colon = input.lastIndexOf(':');
  if (colon !== -1) {
    if (!isValidPortSuffix(input.slice(colon))) return false;
    host = input.slice(0, colon);
  }
  return isValidHostName(host);
}

function isValidPortSuffix(suffix: string): boolean {
  if (!suffix.startsWith(':')) return false;
  const digits = suffix.slice(1);
  return PORT.test(digits) && Number(digits) <= MAX_PORT;
}
