/**
 * A heartbeat's events told through channels by a real engine (docs/notifications.md, "Messages";
 * docs/heartbeats.md, "Events, incidents and reports"): a job pings through the API, misses its
 * deadline, and the engine's lateness claim writes `heartbeat.down`; the user's default channels
 * (a Slack fake, a real SMTP server, a PagerDuty fake on 127.0.0.1) each get one message naming
 * it, and its next ping's recovery answers the down mail and resolves the PagerDuty alert of the
 * same incident. A heartbeat whose `channel_ids` is `[]` is told to none of them; an exit status
 * is named by its code; `heartbeat.up` is a recovery, which `send_recovery: false` leaves unsent.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ChannelConfig, ChannelType, Heartbeat, Incident } from '../../core/index.ts';
import { createTestApi, type TestApi } from '../../core/testing/index.ts';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import { createMonitoringEngine, type MonitoringEngine } from '../../engine/index.ts';
import type { FakeService } from '../support/fakes/fake-service.ts';
import { startFakePagerDuty } from '../support/fakes/pagerduty.ts';
import { startFakeSlack } from '../support/fakes/slack.ts';
import { startSmtp, type SmtpFake } from '../support/fakes/smtp.ts';
import { channelRecord } from '../support/records.ts';
import { LOOPBACK } from './message-fixtures.ts';

const START = '2026-08-01T00:00:00.000Z';
const PUBLIC_URL = 'https://monitoring.example.com/v1';

describe('heartbeats told through channels by the engine', () => {
  let t: TestApi;
  let key: CreatedApiKey;
  let slack: FakeService;
  let smtp: SmtpFake;
  let pagerduty: FakeService;
  let engine: MonitoringEngine;

  beforeEach(async () => {
    t = createTestApi({ allowPrivateTargets: true, start: START });
    key = await t.createKey();
    [slack, smtp, pagerduty] = await Promise.all([startFakeSlack(), startSmtp(), startFakePagerDuty()]);
    engine = createMonitoringEngine({
      store: t.store,
      clock: t.clock,
      lookup: LOOPBACK,
      allowPrivateTargets: true,
      channels: {
        smtpUrl: `smtp://mailer:s3cret@smtp.example.net:${smtp.port}`,
        smtpFrom: 'monitoring@example.com',
        publicUrl: PUBLIC_URL,
        pagerdutyEventsUrl: `${pagerduty.url('events.pagerduty.com')}/v2/enqueue`,
      },
    });
  });
  afterEach(async () => {
    await engine.stop();
    await t.close();
    await Promise.all([slack.close(), smtp.close(), pagerduty.close()]);
  });

  /** A default channel with the default events, as a create without `events` makes it. */
  const channel = (type: ChannelType, config: ChannelConfig, sendRecovery = true) =>
    t.store.createChannel(
      key.key.user_id,
      channelRecord(type, config, { send_recovery: sendRecovery, created_at: START }),
    );
  const heartbeat = async (body: Record<string, unknown>) =>
    (await t.request<Heartbeat>('/v1/heartbeats/create', { method: 'POST', key, body })).body.data!;

  it('late: one Slack message and one mail naming it; its recovery threads the mail and resolves PagerDuty', async () => {
    await channel('slack', { webhook_url: `${slack.url('hooks.slack.com')}/services/T000/B000/XXXXXXXX` });
    await channel('email', { to: ['ops@example.org'] });
    await channel('pagerduty', { routing_key: 'R0uTiNgKeyPagerDutySecretValue32', severity: 'error' });
    const backup = await heartbeat({ name: 'Nightly backup', period_s: 3600, grace_s: 300 });
    const quiet = await heartbeat({ name: 'Quiet job', period_s: 3600, grace_s: 300, channel_ids: [] });
    await t.ping(backup.ping_url!, { body: 'backup done: <b>1204</b> files' });
    await t.ping(quiet.ping_url!);

    t.clock.set('2026-08-01T01:05:01.000Z');
    await engine.runOnce();
    assert.deepEqual([slack.refused, pagerduty.refused], [[], []]);
    assert.equal(slack.accepted.length, 1, 'one Slack message');
    const down = JSON.parse(slack.accepted[0]!.body) as { text: string };
    assert.ok(down.text.includes('Nightly backup is down (no ping by its deadline)'), down.text);
    assert.ok(!slack.accepted[0]!.body.includes('Quiet job'), 'a heartbeat with channel_ids [] is told to none');
    assert.equal(smtp.received.length, 1, 'one mail');
    const downMail = smtp.received[0]!.mail;
    assert.equal(downMail.subject, 'Nightly backup is down (no ping by its deadline)');
    for (const part of [
      'expected every 1 h with 5 min of grace; nothing by 2026-08-01 01:05 UTC',
      "last ping's body: backup done: <b>1204</b> files",
      'since 2026-08-01 01:05 UTC',
    ]) {
      assert.ok(downMail.text!.includes(part), downMail.text);
    }
    assert.ok(String(downMail.html).includes('backup done: &lt;b&gt;1204&lt;/b&gt; files'), String(downMail.html));
    assert.ok(String(downMail.html).includes(`${PUBLIC_URL}/heartbeats/get?id=${backup.id}`));

    // Past both grouping windows (10 s for chat, 60 s for email), the job pings again.
    t.clock.set('2026-08-01T01:25:01.000Z');
    await t.ping(backup.ping_url!);
    await engine.runOnce();
    assert.equal(slack.accepted.length, 2, 'one more for the recovery');
    const up = JSON.parse(slack.accepted[1]!.body) as { text: string };
    assert.ok(up.text.includes('Nightly backup is up again after 20 min down'), up.text);
    assert.equal(smtp.received.length, 2);
    const upMail = smtp.received[1]!.mail;
    assert.equal(upMail.inReplyTo, downMail.messageId, 'the recovery answers the down mail');
    assert.deepEqual([upMail.references].flat(), [downMail.messageId]);

    const incidents = await t.request<Incident[]>(`/v1/incidents?heartbeat_id=${backup.id}`, { key });
    const [incident] = incidents.body.data!;
    assert.ok(incident !== undefined && incident.resolved_at !== null, 'the incident closed');
    assert.equal(downMail.messageId, `<heartbeat-incident-${incident.id}@example.com>`);
    const sent = pagerduty.accepted.map((r) => JSON.parse(r.body) as { event_action: string; dedup_key: string });
    assert.deepEqual(
      sent.map((e) => e.event_action),
      ['trigger', 'resolve'],
    );
    assert.ok(sent[0]!.dedup_key.includes(`heartbeat-incident-${incident.id}`), sent[0]!.dedup_key);
    assert.equal(sent[1]!.dedup_key, sent[0]!.dedup_key);
  });

  it('an exit status names its code; heartbeat.up is a recovery, not sent to a channel without send_recovery', async () => {
    const chat = `${slack.url('hooks.slack.com')}/services/T000/B000/XXXXXXXX`;
    await channel('slack', { webhook_url: chat }, false);
    const job = await heartbeat({ period_s: 3600 });
    await t.ping(job.ping_url!, { body: 'starting' });
    t.clock.advance(60_000);
    await t.ping(`${job.ping_url!}/3`, { body: 'rsync: disk full' });
    await engine.runOnce();
    assert.equal(slack.accepted.length, 1);
    const down = JSON.parse(slack.accepted[0]!.body) as { text: string };
    assert.ok(down.text.includes(`heartbeat ${job.id} (every 1 h) is down (the job exited with status 3)`), down.text);
    t.clock.advance(120_000);
    await t.ping(job.ping_url!);
    await engine.runOnce();
    assert.equal(slack.accepted.length, 1, 'no recovery message');
  });
});
