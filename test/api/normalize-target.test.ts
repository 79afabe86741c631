import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { domainToASCII } from 'node:url';
import {
  isValidHostHeader,
  normalizeDomain,
  normalizeHost,
  normalizeTarget,
} from '../../core/targets/normalize-target.ts';

const strict = { allowPrivateTargets: false };
const lax = { allowPrivateTargets: true };

const label63 = 'a'.repeat(63);
const label64 = 'a'.repeat(64);
/** 63+1+63+1+63+1+61 = 253 characters. */
const name253 = `${label63}.${label63}.${label63}.${'b'.repeat(57)}.com`;
const name254 = `${label63}.${label63}.${label63}.${'b'.repeat(58)}.com`;

describe('normalizeDomain', () => {
  test('the long-name fixtures have the intended lengths', () => {
    assert.equal(name253.length, 253);
    assert.equal(name254.length, 254);
  });

  const valid: [input: string, stored: string][] = [
    ['example.com', 'example.com'],
    ['Example.COM', 'example.com'],
    ['WWW.Example.Com.', 'www.example.com'],
    ['a.b', 'a.b'],
    ['sub-domain.example-1.co.uk', 'sub-domain.example-1.co.uk'],
    ['1.2.3.com', '1.2.3.com'],
    ['123.example', '123.example'],
    ['xn--pple-43d.com', 'xn--pple-43d.com'],
    ['XN--PPLE-43D.COM', 'xn--pple-43d.com'],
    // IDN homographs are stored as punycode, so they never pass for the Latin name.
    ['\u0430pple.com', 'xn--pple-43d.com'],
    ['\u0430\u0440\u0440\u04cf\u0435.com', 'xn--80ak6aa92e.com'],
    ['münchen.de', 'xn--mnchen-3ya.de'],
    ['MÜNCHEN.DE', 'xn--mnchen-3ya.de'],
    ['faß.de', 'xn--fa-hia.de'],
    ['例え.jp', 'xn--r8jz45g.jp'],
    ['bücher.example。', 'xn--bcher-kva.example'],
    ['ab--cd.com', 'ab--cd.com'],
    [`${label63}.com`, `${label63}.com`],
    [name253, name253],
    [`${name253}.`, name253],
  ];
  for (const [input, stored] of valid) {
    test(`${JSON.stringify(input)} → ${stored}`, () => {
      assert.equal(normalizeDomain(input), stored);
    });
  }

  const invalid: [input: string, why: string][] = [
    ['', 'empty'],
    ['com', 'one label'],
    ['localhost', 'one label'],
    ['.', 'root only'],
    ['example.com..', 'two trailing dots'],
    ['.example.com', 'leading dot'],
    ['a..com', 'empty label'],
    [' example.com', 'leading space'],
    ['example.com ', 'trailing space'],
    ['exa mple.com', 'inner space'],
    ['example.com\t', 'tab'],
    ['exam\nple.com', 'newline (the URL host parser would drop it)'],
    ['example.com/path', 'path (the URL host parser would cut it off)'],
    ['example.com?x', 'query'],
    ['example.com#x', 'fragment'],
    ['example.com\\x', 'backslash'],
    ['example.com:443', 'port'],
    ['user@example.com', 'user info'],
    ['ex%41mple.com', 'percent-encoding'],
    ['under_score.com', 'underscore'],
    ['*.example.com', 'wildcard'],
    ['-example.com', 'label starts with -'],
    ['example-.com', 'label ends with -'],
    ['example.-com', 'label starts with -'],
    [`${label64}.com`, 'label of 64'],
    [name254, 'name of 254'],
    ['example.123', 'all-digit last label'],
    ['example.0x1f', 'hex last label (a URL parser reads it as IPv4)'],
    ['1.2.3.4', 'IPv4'],
    ['1.2.3.4.', 'IPv4 with trailing dot'],
    ['127.1', 'short IPv4'],
    ['0x7f.0.0.1', 'hex IPv4'],
    ['0x7f.1', 'hex IPv4'],
    ['0177.0.0.1', 'octal IPv4'],
    ['2130706433', 'integer IPv4'],
    ['１２７.０.０.１', 'full-width IPv4'],
    ['１２７。１', 'full-width short IPv4'],
    ['::1', 'IPv6'],
    ['[::1]', 'bracketed IPv6'],
    ['xn--abc.com', 'invalid punycode'],
    ['xn--iñvalid.com', 'non-ASCII in a punycode label'],
    ['a\u00a0b.com', 'no-break space'],
    ['a\u2024b.com', 'one dot leader'],
    ['example.com\u0000', 'NUL'],
  ];
  for (const [input, why] of invalid) {
    test(`${JSON.stringify(input)} refused: ${why}`, () => {
      assert.equal(normalizeDomain(input), null);
    });
  }

  test('a name accepted as written is what IDNA makes of it (the stored-form shortcut skips domainToASCII)', () => {
    // Seeded, so a failure names the same inputs every run: letters, digits, hyphens and dots in
    // every arrangement, with `xn--` and numeric last labels among them.
    let seed = 16;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const alphabet = 'abcxnz019-.';
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      let name = '';
      const length = 1 + Math.floor(random() * 24);
      for (let k = 0; k < length; k++) name += alphabet[Math.floor(random() * alphabet.length)];
      const stored = normalizeDomain(name);
      if (stored !== name) continue;
      accepted++;
      assert.equal(
        domainToASCII(name),
        name,
        `${JSON.stringify(name)} is accepted as written, but IDNA makes it something else`,
      );
    }
    assert.ok(accepted > 1_000, `only ${accepted} generated names were accepted as written`);
  });
});

describe('normalizeTarget', () => {
  type Case = [type: 'domain' | 'ip', input: string, options: typeof strict, expected: object];
  const cases: Case[] = [
    ['domain', 'Example.COM.', strict, { value: 'example.com' }],
    ['domain', '\u0430pple.com', strict, { value: 'xn--pple-43d.com' }],
    // One label, so not a valid domain; but the contract's policy names it, and the policy answers.
    ['domain', 'localhost', strict, { problem: 'forbidden_target' }],
    ['domain', 'LOCALHOST.', strict, { problem: 'forbidden_target' }],
    ['domain', 'localhost', lax, { problem: 'invalid_value' }],
    ['ip', 'localhost', strict, { problem: 'invalid_value' }],
    ['domain', 'api.localhost', strict, { problem: 'forbidden_target' }],
    ['domain', 'api.localhost', lax, { value: 'api.localhost' }],
    ['domain', 'NAS.Local.', strict, { problem: 'forbidden_target' }],
    ['domain', 'nas.local', lax, { value: 'nas.local' }],
    ['domain', 'db.internal', strict, { problem: 'forbidden_target' }],
    ['domain', 'www.test', strict, { problem: 'forbidden_target' }],
    ['domain', 'x.invalid', strict, { problem: 'forbidden_target' }],
    ['domain', 'www.example', strict, { problem: 'forbidden_target' }],
    ['domain', 'router.home.arpa', strict, { problem: 'forbidden_target' }],
    ['domain', '127.0.0.1', strict, { problem: 'invalid_value' }],
    ['domain', '127.0.0.1', lax, { problem: 'invalid_value' }],
    ['domain', '127.1', lax, { problem: 'invalid_value' }],
    ['domain', '', strict, { problem: 'invalid_value' }],
    ['ip', '1.1.1.1', strict, { value: '1.1.1.1' }],
    ['ip', '8.8.8.8', strict, { value: '8.8.8.8' }],
    ['ip', '2606:4700:4700:0:0:0:0:1111', strict, { value: '2606:4700:4700::1111' }],
    ['ip', '2606:4700:4700::1111', strict, { value: '2606:4700:4700::1111' }],
    ['ip', '::ffff:8.8.8.8', strict, { value: '8.8.8.8' }],
    ['ip', '127.0.0.1', strict, { problem: 'forbidden_target' }],
    ['ip', '127.0.0.1', lax, { value: '127.0.0.1' }],
    ['ip', '::ffff:7f00:1', strict, { problem: 'forbidden_target' }],
    ['ip', '::ffff:127.0.0.1', lax, { value: '127.0.0.1' }],
    ['ip', '0:0:0:0:0:ffff:7f00:1', strict, { problem: 'forbidden_target' }],
    ['ip', '::127.0.0.1', strict, { problem: 'forbidden_target' }],
    ['ip', '::127.0.0.1', lax, { value: '::7f00:1' }],
    ['ip', '::1', strict, { problem: 'forbidden_target' }],
    ['ip', '169.254.169.254', strict, { problem: 'forbidden_target' }],
    ['ip', '10.0.0.1', lax, { value: '10.0.0.1' }],
    ['ip', 'FD00::1', lax, { value: 'fd00::1' }],
    ['ip', '127.1', lax, { problem: 'invalid_value' }],
    ['ip', '0x7f.0.0.1', lax, { problem: 'invalid_value' }],
    ['ip', '0177.0.0.1', lax, { problem: 'invalid_value' }],
    ['ip', '2130706433', lax, { problem: 'invalid_value' }],
    ['ip', '1.2.3.04', lax, { problem: 'invalid_value' }],
    ['ip', 'fe80::1%eth0', lax, { problem: 'invalid_value' }],
    ['ip', '[::1]', lax, { problem: 'invalid_value' }],
    ['ip', ' 8.8.8.8', strict, { problem: 'invalid_value' }],
    ['ip', 'example.com', strict, { problem: 'invalid_value' }],
  ];
  for (const [type, input, options, expected] of cases) {
    const mode = options.allowPrivateTargets ? 'private allowed' : 'default';
    test(`${type} ${JSON.stringify(input)} (${mode}) → ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(normalizeTarget(type, input, options), expected);
    });
  }
});

describe('normalizeHost', () => {
  const cases: [input: string, options: typeof strict, expected: object][] = [
    ['origin.example.com', strict, { value: 'origin.example.com' }],
    ['Origin.Example.COM.', strict, { value: 'origin.example.com' }],
    ['münchen.de', strict, { value: 'xn--mnchen-3ya.de' }],
    ['8.8.8.8', strict, { value: '8.8.8.8' }],
    ['2606:4700:4700:0::1111', strict, { value: '2606:4700:4700::1111' }],
    ['::ffff:8.8.8.8', strict, { value: '8.8.8.8' }],
    ['10.0.0.5', strict, { problem: 'forbidden_target' }],
    ['10.0.0.5', lax, { value: '10.0.0.5' }],
    ['fd00::5', strict, { problem: 'forbidden_target' }],
    ['origin.internal', strict, { problem: 'forbidden_target' }],
    ['origin.internal', lax, { value: 'origin.internal' }],
    ['localhost', lax, { problem: 'invalid_value' }],
    ['localhost', strict, { problem: 'forbidden_target' }],
    ['127.1', lax, { problem: 'invalid_value' }],
    ['0x7f.0.0.1', lax, { problem: 'invalid_value' }],
    ['[2001:db8::1]', lax, { problem: 'invalid_value' }],
    ['fe80::1%eth0', lax, { problem: 'invalid_value' }],
    ['origin.example.com:8443', lax, { problem: 'invalid_value' }],
    ['', lax, { problem: 'invalid_value' }],
  ];
  for (const [input, options, expected] of cases) {
    const mode = options.allowPrivateTargets ? 'private allowed' : 'default';
    test(`${JSON.stringify(input)} (${mode}) → ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(normalizeHost(input, options), expected);
    });
  }
});

describe('isValidHostHeader', () => {
  const valid = [
    'example.com',
    'Example.COM',
    'example.com.',
    'localhost',
    'localhost:8080',
    'www.example.com:443',
    'www.example.com:1',
    'www.example.com:65535',
    'a-b.c-d',
    '1.2.3.4',
    '1.2.3.4:80',
    '[::1]',
    '[::1]:8443',
    '[2001:DB8::1]:443',
    '[::ffff:127.0.0.1]',
    'xn--pple-43d.com',
    `${label63}.com`,
    name253,
    `${name253}.`,
  ];
  for (const input of valid) {
    test(`${JSON.stringify(input)} is valid`, () => {
      assert.equal(isValidHostHeader(input), true);
    });
  }

  const invalid = [
    '',
    '.',
    ':80',
    'example.com:',
    'example.com:0',
    'example.com:080',
    'example.com:65536',
    'example.com:99999',
    'example.com:8080:80',
    'example.com:+80',
    'example..com',
    '.example.com',
    'example.com..',
    'exa mple.com',
    ' example.com',
    'example.com ',
    'under_score.com',
    'example.com/',
    'user@example.com',
    'münchen.de',
    `${label64}.com`,
    name254,
    '1.2.3.04',
    '127.1',
    '256.1.1.1',
    '1.2.3.4.',
    '::1',
    '[::1',
    '::1]',
    '[::1]80',
    '[::1]:0',
    '[1.2.3.4]',
    '[fe80::1%eth0]',
    '[fe80::1%25eth0]',
    '[example.com]',
    '[]',
  ];
  for (const input of invalid) {
    test(`${JSON.stringify(input)} is invalid`, () => {
      assert.equal(isValidHostHeader(input), false);
    });
  }
});
