/**
 * Email through a real SMTP server (`smtp-server`) on 127.0.0.1, each mail parsed by a real parser
 * (`mailparser`): multipart text and HTML, the From of `--smtp-from`, the login of the SMTP URL,
 * and an incident as one thread (the recovery's In-Reply-To is the down mail's Message-ID).
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ParsedMail } from 'mailparser';
import type { Notification } from '../../core/internal.ts';
import type { ChannelDelivery } from '../../engine/channels/channel-delivery.ts';
import { createChannelSender } from '../../engine/index.ts';
import { startSmtp, type SmtpFake } from '../support/fakes/smtp.ts';
import { PUBLIC_URL } from './kind-scenarios.ts';
import {
  downItem,
  heartbeatDownItem,
  heartbeatUpItem,
  HOSTILE_NAME,
  LOOPBACK,
  notification,
  reminderItem,
  T125,
  T5,
  testDelivery,
  twoHundredDown,
  upItem,
} from './message-fixtures.ts';

const TO = ['ops@example.org', 'oncall@example.org'];

describe('email', () => {
  let smtp: SmtpFake;
  let delivery: ChannelDelivery;
  beforeEach(async () => {
    smtp = await startSmtp();
    delivery = testDelivery({
      smtpUrl: `smtp://mailer:s3cret@smtp.example.net:${smtp.port}`,
      smtpFrom: 'monitoring@alerts.example.com',
      publicUrl: PUBLIC_URL,
    });
  });
  afterEach(async () => {
    delivery.close();
    await smtp.close();
  });

  async function send(n: Notification): Promise<ParsedMail> {
    const before = smtp.received.length;
    const attempt = await delivery.deliver({ type: 'email', config: { to: TO } }, n);
    assert.deepEqual(attempt.verdict, { outcome: 'delivered' });
    assert.equal(smtp.received.length, before + 1, 'one mail');
    return smtp.received.at(-1)!.mail;
  }

  it('a down mail: multipart, from --smtp-from to the channel, logged in as the URL says', async () => {
    const mail = await send(notification([downItem(1, { name: 'Shop front' })]));
    const [envelope] = smtp.received;
    assert.deepEqual([envelope!.from, envelope!.to], ['monitoring@alerts.example.com', TO]);
    assert.deepEqual(smtp.logins, ['mailer:s3cret']);
    assert.equal(mail.subject, 'Shop front is down');
    assert.equal(mail.messageId, '<device-incident-1@alerts.example.com>');
    assert.equal(mail.inReplyTo, undefined);
    for (const part of ['public_https: timeout', 'location eu-west: failing (timeout)', 'since 2026-03-01 10:00 UTC']) {
      assert.ok(mail.text!.includes(part), mail.text);
      assert.ok(String(mail.html).includes(part), String(mail.html));
    }
    assert.ok(String(mail.html).includes(`<a href="${PUBLIC_URL}/devices/get?id=1">`));
  });

  it('the recovery and a reminder answer the down mail, so the incident is one thread', async () => {
    const down = await send(notification([downItem(1)]));
    const reminder = await send(notification([reminderItem(1)], T125));
    const up = await send(notification([upItem(1)], T5));
    assert.equal(reminder.inReplyTo, down.messageId);
    assert.equal(up.inReplyTo, down.messageId);
    assert.deepEqual([up.references].flat(), [down.messageId]);
    assert.notEqual(up.messageId, down.messageId);
    assert.ok(up.subject!.includes('is up again after 5 min down'), up.subject);
    assert.ok(reminder.text!.includes('is still down') && reminder.text!.includes('for 2 h 5 min'), reminder.text);
  });

  it("a heartbeat's down mail names it, its cause and its last body (escaped); the recovery answers it", async () => {
    const down = await send(
      notification([heartbeatDownItem(4, { name: 'Nightly backup', cause: 'failed', last_ping_body: HOSTILE_NAME })]),
    );
    assert.equal(down.subject, 'Nightly backup is down (the job reported a failure)');
    assert.equal(down.messageId, '<heartbeat-incident-4@alerts.example.com>');
    assert.ok(down.text!.includes(`last ping's body: ${HOSTILE_NAME}`), down.text);
    assert.ok(!String(down.html).includes('<script>'), 'no live tag');
    assert.ok(String(down.html).includes(`<a href="${PUBLIC_URL}/heartbeats/get?id=4">`));
    const up = await send(notification([heartbeatUpItem(4, { name: 'Nightly backup' })], T5));
    assert.equal(up.inReplyTo, down.messageId);
    assert.equal(up.subject, 'Nightly backup is up again after 5 min down');
  });

  it('200 devices down: one mail listing 20 and "… and 180 more"', async () => {
    const mail = await send(twoHundredDown());
    assert.equal(mail.subject, '200 devices down');
    assert.ok(mail.text!.includes('web20.example.com:443') && !mail.text!.includes('web21.example.com'));
    assert.ok(mail.text!.includes('… and 180 more') && String(mail.html).includes('… and 180 more'));
  });

  it('a hostile name is escaped in the HTML part and plain in the text part', async () => {
    const mail = await send(notification([downItem(1, { name: HOSTILE_NAME })]));
    assert.ok(!String(mail.html).includes('<script>'), 'no live tag');
    assert.ok(String(mail.html).includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'));
    assert.ok(mail.text!.includes(`${HOSTILE_NAME} is down`));
  });

  it('a recipient the server refuses is a permanent failure; a server that is down is ours, retried', async () => {
    smtp.unknown.add('ops@example.org');
    smtp.unknown.add('oncall@example.org');
    const refused = await delivery.deliver({ type: 'email', config: { to: TO } }, notification([downItem(1)]));
    assert.deepEqual(refused.verdict, { outcome: 'failed', error: 'smtp_550' });
    await smtp.close();
    const down = await delivery.deliver({ type: 'email', config: { to: TO } }, notification([downItem(1)]));
    assert.deepEqual(down.verdict, { outcome: 'retry', error: 'ECONNREFUSED', retryAfterMs: null, ours: true });
  });

  it('a test message through createChannelSender; without an SMTP URL, email is unavailable', async () => {
    const sender = createChannelSender({
      lookup: LOOPBACK,
      smtpUrl: `smtp://mailer:s3cret@smtp.example.net:${smtp.port}`,
      smtpFrom: 'monitoring@alerts.example.com',
    });
    assert.equal(sender.email, true);
    const result = await sender.test({ id: 3, name: 'Ops mail', type: 'email', config: { to: TO } });
    assert.deepEqual([result.delivered, result.http_status, result.error], [true, null, null]);
    assert.ok(smtp.received[0]!.mail.text!.includes('Ops mail works'));
    const none = createChannelSender({ lookup: LOOPBACK });
    assert.equal(none.email, false);
    const unavailable = await none.test({ id: 3, name: 'Ops mail', type: 'email', config: { to: TO } });
    assert.deepEqual([unavailable.delivered, unavailable.error], [false, 'email_unavailable']);
  });
});
