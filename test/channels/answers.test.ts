/**
 * How each kind judges a service's answer (docs/notifications.md, "Answers"): delivered, retried
 * (408, 429, 5xx, with Retry-After), a permanent failure (another 4xx), or the channel disabled (a
 * chat webhook's 404 or 410; Telegram's, PagerDuty's and ntfy's 401 or 403). The fakes answer what
 * each test scripts; the clock is manual, so a Retry-After date is read against it.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { ChannelConfig, ChannelType } from '../../core/internal.ts';
import { retryAfterMs } from '../../engine/channels/answers.ts';
import type { DeliveryVerdict } from '../../engine/channels/kind.ts';
import { createChannelSender } from '../../engine/index.ts';
import { startFakeDiscord } from '../support/fakes/discord.ts';
import { json, type FakeAnswer, type FakeService } from '../support/fakes/fake-service.ts';
import { startFakeNtfy } from '../support/fakes/ntfy.ts';
import { startFakePagerDuty } from '../support/fakes/pagerduty.ts';
import { startFakeSlack } from '../support/fakes/slack.ts';
import { startFakeTeams } from '../support/fakes/teams.ts';
import { startFakeTelegram } from '../support/fakes/telegram.ts';
import { downItem, LOOPBACK, notification, T0, testDelivery } from './message-fixtures.ts';

const TOKEN = '123456789:AAEexampleexampleexampleexample00';
const KEY = 'R0123456789abcdef0123456789abcde';

interface Service {
  type: ChannelType;
  start(): Promise<FakeService>;
  config(fake: FakeService): ChannelConfig;
}

const SERVICES: Record<string, Service> = {
  slack: {
    type: 'slack',
    start: startFakeSlack,
    config: (f) => ({ webhook_url: `${f.url('hooks.slack.example.com')}/services/X` }),
  },
  discord: {
    type: 'discord',
    start: startFakeDiscord,
    config: (f) => ({ webhook_url: `${f.url('discord.example.com')}/api/webhooks/1/t` }),
  },
  teams: {
    type: 'teams',
    start: startFakeTeams,
    config: (f) => ({ webhook_url: `${f.url('teams.example.com')}/workflows/1` }),
  },
  telegram: {
    type: 'telegram',
    start: () => startFakeTelegram(TOKEN),
    config: () => ({ bot_token: TOKEN, chat_id: '42' }),
  },
  pagerduty: {
    type: 'pagerduty',
    start: startFakePagerDuty,
    config: () => ({ routing_key: KEY, severity: 'critical' }),
  },
  ntfy: {
    type: 'ntfy',
    start: () => startFakeNtfy('alerts'),
    config: (f) => ({ server_url: f.url('ntfy.example.com'), topic: 'alerts', token: null }),
  },
};

const fakes: FakeService[] = [];
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
});

/** The verdict on `answer`, given by the fake of `name` to one down message. */
async function verdictOn(name: string, answer: FakeAnswer | null): Promise<DeliveryVerdict> {
  const service = SERVICES[name]!;
  const fake = await service.start();
  fakes.push(fake);
  if (answer !== null) fake.script(answer);
  const delivery = testDelivery({
    telegramApiUrl: fake.url('api.telegram.example.com'),
    pagerdutyEventsUrl: `${fake.url('events.pagerduty.example.com')}/v2/enqueue`,
  });
  const attempt = await delivery.deliver(
    { type: service.type, config: service.config(fake) },
    notification([downItem(1)]),
  );
  return attempt.verdict;
}

const status = (code: number, headers: Record<string, string> = {}): FakeAnswer => ({
  status: code,
  headers,
  body: '',
});

describe('answers', () => {
  for (const name of ['slack', 'discord', 'teams']) {
    it(`${name}: 404 or 410 from the webhook URL disables the channel; 401 and 403 do not`, async () => {
      assert.deepEqual(await verdictOn(name, status(404)), {
        outcome: 'disable',
        error: 'http_404',
        reason: 'http_404',
      });
      assert.deepEqual(await verdictOn(name, status(410)), {
        outcome: 'disable',
        error: 'http_410',
        reason: 'http_410',
      });
      assert.deepEqual(await verdictOn(name, status(403)), { outcome: 'failed', error: 'http_403' });
    });
  }

  for (const name of ['telegram', 'pagerduty', 'ntfy']) {
    it(`${name}: 401 or 403 disables the channel; 404 is this message's failure`, async () => {
      assert.deepEqual(await verdictOn(name, status(401)), {
        outcome: 'disable',
        error: 'http_401',
        reason: 'http_401',
      });
      assert.deepEqual(await verdictOn(name, status(403)), {
        outcome: 'disable',
        error: 'http_403',
        reason: 'http_403',
      });
      assert.deepEqual(await verdictOn(name, status(404)), { outcome: 'failed', error: 'http_404' });
    });
  }

  for (const name of Object.keys(SERVICES)) {
    it(`${name}: 429 is retried after its Retry-After, 408 and 5xx are retried, another 4xx is permanent`, async () => {
      assert.deepEqual(await verdictOn(name, status(429, { 'retry-after': '7' })), {
        outcome: 'retry',
        error: 'http_429',
        retryAfterMs: 7000,
        ours: false,
      });
      assert.deepEqual(await verdictOn(name, status(500)), {
        outcome: 'retry',
        error: 'http_500',
        retryAfterMs: null,
        ours: false,
      });
      assert.deepEqual(await verdictOn(name, status(408)), {
        outcome: 'retry',
        error: 'http_408',
        retryAfterMs: null,
        ours: false,
      });
      assert.deepEqual(await verdictOn(name, status(400)), { outcome: 'failed', error: 'http_400' });
      assert.deepEqual(await verdictOn(name, null), { outcome: 'delivered' });
    });
  }

  it("telegram: a 429's wait is read from its body when no header gives it", async () => {
    const answer = json(429, {
      ok: false,
      error_code: 429,
      description: 'Too Many Requests: retry after 13',
      parameters: { retry_after: 13 },
    });
    assert.deepEqual(await verdictOn('telegram', answer), {
      outcome: 'retry',
      error: 'http_429',
      retryAfterMs: 13_000,
      ours: false,
    });
  });

  it('a Retry-After date counts from the clock; a fraction of a second rounds up; nonsense is ignored', () => {
    const now = Date.parse(T0);
    assert.equal(retryAfterMs(new Date(now + 90_000).toUTCString(), now), 90_000);
    assert.equal(retryAfterMs(new Date(now - 5_000).toUTCString(), now), 0);
    assert.equal(retryAfterMs('1.25', now), 1250);
    assert.equal(retryAfterMs('soon', now), null);
    assert.equal(retryAfterMs(undefined, now), null);
    assert.equal(retryAfterMs('9999999', now), 86_400_000, 'at most a day');
  });

  it("a refused connection is the service's failure: retried, never disabling", async () => {
    const fake = await startFakeSlack();
    const config = { webhook_url: `${fake.url('hooks.slack.example.com')}/services/X` };
    await fake.close();
    const attempt = await testDelivery().deliver({ type: 'slack', config }, notification([downItem(1)]));
    assert.deepEqual(attempt.verdict, { outcome: 'retry', error: 'ECONNREFUSED', retryAfterMs: null, ours: false });
    assert.equal(attempt.httpStatus, null);
  });

  it('a URL the target policy refuses is not sent to', async () => {
    const fake = await startFakeSlack();
    fakes.push(fake);
    const sender = createChannelSender({ lookup: LOOPBACK });
    const result = await sender.test({ id: 1, name: 'Ops', type: 'slack', config: SERVICES.slack!.config(fake) });
    assert.deepEqual([result.delivered, result.http_status, result.error], [false, null, 'forbidden_address']);
    assert.equal(fake.accepted.length + fake.refused.length, 0);
  });

  it('a test message says how it went: a deleted Slack webhook is http_404', async () => {
    const fake = await startFakeSlack();
    fakes.push(fake);
    fake.script(status(404));
    const sender = createChannelSender({ lookup: LOOPBACK, allowPrivateTargets: true });
    const result = await sender.test({ id: 1, name: 'Ops', type: 'slack', config: SERVICES.slack!.config(fake) });
    assert.deepEqual([result.delivered, result.http_status, result.error], [false, 404, 'http_404']);
    const ok = await sender.test({ id: 1, name: 'Ops', type: 'slack', config: SERVICES.slack!.config(fake) });
    assert.deepEqual([ok.delivered, ok.http_status, ok.error], [true, 200, null]);
    assert.ok(fake.accepted[0]!.body.includes('Ops works: this is a test message from monitoring-api'));
  });
});
