/**
 * docs/engine.md, "Configuration": bad engine flags, for `worker` and `serve --worker`, give one
 * line on stderr and exit 2 before anything is opened.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../support/cli.ts';
import { runCommand } from '../support/run-command.ts';

let dir: string;
before(async () => (dir = await mkdtemp(join(tmpdir(), 'monitoring-worker-flags-'))));
after(() => rm(dir, { recursive: true, force: true }));

const BAD_CALLS: [string, string[], RegExp][] = [
  ['an unknown flag', ['worker', '--bogus'], /unknown flag --bogus for worker/],
  ['a stray argument', ['worker', 'now'], /unexpected argument "now" for worker/],
  ['a concurrency of 0', ['worker', '--concurrency', '0'], /--concurrency must be an integer from 1/],
  ['a concurrency that is no number', ['worker', '--concurrency', 'lots'], /--concurrency/],
  [
    'a concurrency given twice',
    ['worker', '--concurrency', '5', '--concurrency', '6'],
    /--concurrency is given more than once/,
  ],
  ['a DNS server by name', ['worker', '--dns-server', 'dns.example.net'], /--dns-server must be an IP address/],
  ['a DNS server port out of range', ['worker', '--dns-server', '127.0.0.1:70000'], /--dns-server/],
  ['a second, bad DNS server', ['worker', '--dns-server', '127.0.0.1', '--dns-server', '1.2.3'], /"1\.2\.3"/],
  ['a zone that is no name', ['worker', '--dnsbl-zone', 'not a zone'], /--dnsbl-zone must be a DNS zone name/],
  ['an IP address as a zone', ['worker', '--dnsbl-zone', '127.0.0.2'], /--dnsbl-zone/],
  ['a bad domain zone', ['worker', '--dnsbl-domain-zone', 'single'], /--dnsbl-domain-zone must be a DNS zone name/],
  ['a probe timeout of 0', ['worker', '--probe-timeout', '0'], /--probe-timeout/],
  ['a DNS timeout of 0', ['worker', '--dns-timeout', '0'], /--dns-timeout must be an integer from 1/],
  [
    'a lease shorter than a second',
    ['worker', '--lease', '999'],
    /--lease must be an integer of milliseconds from 1000/,
  ],
  ['a lease longer than a day', ['worker', '--lease', '86400001'], /--lease/],
  ['a lease in seconds', ['worker', '--lease', '2s'], /--lease/],
  ['a lease on serve without --worker', ['serve', '--lease', '5000'], /--lease needs --worker/],
  [
    'a poll interval under 100 ms',
    ['worker', '--poll-interval', '99'],
    /--poll-interval must be an integer of milliseconds from 100 to 3600000/,
  ],
  ['a poll interval over an hour', ['worker', '--poll-interval', '3600001'], /--poll-interval/],
  ['a poll interval in seconds', ['worker', '--poll-interval', '1s'], /--poll-interval/],
  ['a poll interval on serve without --worker', ['serve', '--poll-interval', '500'], /--poll-interval needs --worker/],
  ['a negative retry delay', ['worker', '--retry-delay=-5'], /--retry-delay/],
  ['failures before down of 0', ['worker', '--failures-before-down', '0'], /--failures-before-down/],
  ['a fractional retention', ['worker', '--result-retention', '1.5'], /--result-retention/],
  ['a retention in minutes', ['worker', '--result-retention', '90m'], /--result-retention must be a whole number/],
  ['a retention of 0 hours', ['worker', '--result-retention', '0h'], /--result-retention/],
  ['a retention unit alone', ['worker', '--result-retention', 'd'], /--result-retention/],
  ['a retention over 36500 days', ['worker', '--result-retention', '36501d'], /--result-retention/],
  ['a report retention in weeks', ['worker', '--report-retention', '57w'], /--report-retention must be a whole/],
  ['a negative report retention', ['worker', '--report-retention=-1'], /--report-retention/],
  ['a report retention on serve without --worker', ['serve', '--report-retention', '30d'], /needs --worker/],
  ['an empty worker id', ['worker', '--worker-id='], /--worker-id/],
  ['a stop timeout of 0', ['worker', '--stop-timeout', '0'], /--stop-timeout must be an integer from 1/],
  ['a stop timeout that is no number', ['worker', '--stop-timeout', '5s'], /--stop-timeout/],
  ['a stop timeout on serve', ['serve', '--stop-timeout', '100'], /unknown flag --stop-timeout/],
  ['a worker id with a space', ['worker', '--worker-id', 'a b'], /--worker-id/],
  [
    'a value for --allow-private-targets',
    ['worker', '--allow-private-targets=yes'],
    /--allow-private-targets takes no value/,
  ],
  [
    'a CA file that does not exist',
    ['worker', '--ca-file', '/nonexistent/ca.pem'],
    /--ca-file \/nonexistent\/ca\.pem: ENOENT/,
  ],
  [
    'a CA file with no certificate',
    ['worker', '--ca-file', 'package.json'],
    /--ca-file package\.json holds no PEM certificate/,
  ],
  ['a query timeout of 0', ['worker', '--query-timeout', '0'], /--query-timeout/],
  [
    'an unknown log level',
    ['worker', '--log-level', 'loud'],
    /--log-level must be debug, info, warn or error, not "loud"/,
  ],
  [
    'an unknown log level on serve',
    ['serve', '--log-level', 'trace'],
    /--log-level must be debug, info, warn or error/,
  ],
  ['engine flags on serve without --worker', ['serve', '--concurrency', '5'], /--concurrency needs --worker/],
  [
    'zone descriptions on serve without --worker',
    ['serve', '--dnsbl-zone-info', 'zones.json'],
    /--dnsbl-zone-info needs --worker/,
  ],
  // The zone lists are the API's too (a monitor's zones must be among them): checked on serve alone.
  [
    'a bad zone on serve without --worker',
    ['serve', '--dnsbl-zone', 'not a zone'],
    /--dnsbl-zone must be a DNS zone name/,
  ],
  [
    'a zone descriptions file that does not exist',
    ['worker', '--dnsbl-zone-info', '/nonexistent/zones.json'],
    /--dnsbl-zone-info \/nonexistent\/zones\.json: ENOENT/,
  ],
  [
    'a zone descriptions file that is not JSON',
    ['worker', '--dnsbl-zone-info', 'README.md'],
    /--dnsbl-zone-info README\.md is not JSON/,
  ],
  ['a bad engine flag on serve --worker', ['serve', '--worker', '--dns-server', 'resolver'], /--dns-server/],
  ['a bad zone on serve --worker', ['serve', '--worker', '--dnsbl-domain-zone', '-x.org'], /--dnsbl-domain-zone/],
];

/**
 * Through the real binary: one bad engine flag each for worker and serve --worker, which exit 2
 * with the one line as processes; the others run in process through the same command code
 * (runCommand).
 */
const THROUGH_THE_BINARY = new Set(['a concurrency of 0', 'a bad engine flag on serve --worker']);

describe('bad engine flags: one line on stderr, exit 2, no database touched', { concurrency: 4 }, () => {
  for (const [what, args, pattern] of BAD_CALLS) {
    it(what, async () => {
      const database = join(dir, `${what.replaceAll(' ', '-')}.db`);
      const argv = [...args, '--database', `sqlite:${database}`];
      const result = await (THROUGH_THE_BINARY.has(what) ? runCli(argv) : runCommand(argv));
      assert.equal(result.code, 2, `exit code: ${result.stdout}${result.stderr}`);
      assert.equal(result.stdout, '');
      assert.equal(result.stderr.split('\n').length, 2, `one line: ${JSON.stringify(result.stderr)}`);
      assert.match(result.stderr, /^monitoring-api: \S/);
      assert.match(result.stderr, pattern);
      assert.ok(!existsSync(database), 'the database was not touched');
    });
  }
});

/** Zone description files that are JSON but wrong, and the part of the line that names what is wrong. */
const BAD_ZONE_INFO: [string, unknown, RegExp][] = [
  ['an array', [], /must be a JSON object keyed by zone name/],
  ['a key that is no zone', { 'not a zone': {} }, /"not a zone" is no DNS zone name/],
  [
    'an entry without codes',
    { 'bl.example.net': { name: 'X', operator: 'Y', delist_url: null } },
    /"bl\.example\.net"\.codes must be an object/,
  ],
  [
    'a code that is no return code',
    {
      'bl.example.net': {
        name: 'X',
        operator: 'Y',
        delist_url: null,
        codes: { '10.0.0.2': { meaning: 'm', policy: false } },
      },
    },
    /"10\.0\.0\.2", which is no return code/,
  ],
  [
    'a policy that is no flag',
    {
      'bl.example.net': {
        name: 'X',
        operator: 'Y',
        delist_url: null,
        codes: { '127.0.0.2': { meaning: 'm', policy: 'no' } },
      },
    },
    /codes\["127\.0\.0\.2"\]\.policy must be true or false/,
  ],
  [
    'a meaning that is empty',
    {
      'bl.example.net': {
        name: 'X',
        operator: 'Y',
        delist_url: null,
        codes: { '127.0.0.2': { meaning: '', policy: false } },
      },
    },
    /\.meaning must be a non-empty string/,
  ],
  [
    'a delist URL that is no URL',
    { 'bl.example.net': { name: 'X', operator: 'Y', delist_url: 'ftp://x', codes: {} } },
    /\.delist_url must be an http or https URL, or null/,
  ],
  [
    'a missing name',
    { 'bl.example.net': { operator: 'Y', delist_url: null, codes: {} } },
    /"bl\.example\.net"\.name must be a non-empty string/,
  ],
  [
    'an unknown field',
    { 'bl.example.net': { name: 'X', operator: 'Y', delist_url: null, codes: {}, url: 'x' } },
    /unknown field "url"/,
  ],
];

describe('a bad --dnsbl-zone-info file: one line naming what is wrong, exit 2', { concurrency: 4 }, () => {
  for (const [what, content, pattern] of BAD_ZONE_INFO) {
    it(what, async () => {
      const file = join(dir, `${what.replaceAll(' ', '-')}.json`);
      await writeFile(file, JSON.stringify(content));
      const database = join(dir, `${what.replaceAll(' ', '-')}.db`);
      const result = await runCommand(['worker', '--dnsbl-zone-info', file, '--database', `sqlite:${database}`]);
      assert.equal(result.code, 2, `exit code: ${result.stdout}${result.stderr}`);
      assert.equal(result.stderr.split('\n').length, 2, `one line: ${JSON.stringify(result.stderr)}`);
      assert.match(result.stderr, /^monitoring-api: --dnsbl-zone-info \S+: /);
      assert.match(result.stderr, pattern);
      assert.ok(!existsSync(database), 'the database was not touched');
    });
  }
});

it('--help shows the worker command and the engine flags', async () => {
  const result = await runCommand(['worker', '--help']);
  assert.equal(result.code, 0);
  assert.match(result.stdout, /^ {2}worker \[--database URL\]/m);
  assert.match(result.stdout, /--dnsbl-zone ZONE/);
  assert.match(result.stdout, /--dnsbl-zone-info FILE/);
  assert.match(result.stdout, /--dns-server HOST\[:PORT\]/);
  assert.match(result.stdout, /--lease MS/);
  assert.match(result.stdout, /--poll-interval MS/);
  assert.match(result.stdout, /--dns-timeout MS/);
});
