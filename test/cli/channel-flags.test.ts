/**
 * docs/cli.md, "serve": the channel flags are checked before anything is opened, for `serve` and
 * `worker` alike: a bad value is one line naming the flag and exit 2, and the SMTP URL, which may
 * hold a password, is never repeated.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runCommand } from '../support/run-command.ts';

const SMTP = ['--smtp-url', 'smtp://mailer:s3cret@smtp.example.net:587', '--smtp-from', 'monitoring@example.com'];

const BAD: [string, string[], RegExp][] = [
  ['an SMTP URL without a sender', ['--smtp-url', 'smtp://smtp.example.net'], /--smtp-url and --smtp-from go together/],
  ['a sender without an SMTP URL', ['--smtp-from', 'monitoring@example.com'], /--smtp-url and --smtp-from go together/],
  [
    'an SMTP URL of another scheme',
    ['--smtp-url', 'http://mailer:s3cret@smtp.example.net', '--smtp-from', 'a@example.com'],
    /--smtp-url: the SMTP URL must be smtp:/,
  ],
  [
    'an SMTP URL that is no URL',
    ['--smtp-url', 'mailer:s3cret at smtp', '--smtp-from', 'a@example.com'],
    /--smtp-url: the SMTP URL must be/,
  ],
  [
    'a sender that is no address',
    [...SMTP.slice(0, 2), '--smtp-from', 'monitoring'],
    /--smtp-from: the mail sender must be an address/,
  ],
  [
    'a public URL that is not http',
    ['--public-url', 'ftp://monitoring.example.com'],
    /--public-url must be an http or https URL/,
  ],
  [
    'a Telegram API URL that is no URL',
    ['--telegram-api-url', 'telegram'],
    /--telegram-api-url must be an http or https URL/,
  ],
  [
    'a PagerDuty URL that is not http',
    ['--pagerduty-events-url', 'mailto:x@example.com'],
    /--pagerduty-events-url must be an http or https URL/,
  ],
];

describe('channel flags', () => {
  for (const command of ['serve', 'worker']) {
    for (const [what, args, message] of BAD) {
      it(`${command}: ${what} is exit 2`, async () => {
        const result = await runCommand([command, ...args]);
        assert.equal(result.code, 2, result.stderr);
        assert.match(result.stderr, message);
        assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
        assert.ok(!result.stderr.includes('s3cret'), 'the password is not repeated');
      });
    }
  }
});
