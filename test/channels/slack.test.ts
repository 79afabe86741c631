/** Slack messages through the fake incoming webhook, which holds them to Block Kit's shape and limits. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { startFakeSlack, slackTexts } from '../support/fakes/slack.ts';
import { kindScenarios } from './kind-scenarios.ts';
import type { EventData, EventType } from '../../core/internal.ts';
import { downItem, notification, T0 } from './message-fixtures.ts';

/** mrkdwn as read: the emoji and the bold around each item's name gone, links as label and URL, entities decoded. */
const unescape = (text: string) =>
  text
    .replace(/^:[a-z_]+: \*(.*?)\* /gm, '$1 ')
    .replace(/<(https?:\/\/[^|>]+)\|([^>]*)>/g, '$2 $1')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

const { fake, send } = kindScenarios({
  type: 'slack',
  start: startFakeSlack,
  config: (f) => ({ webhook_url: `${f.url('hooks.slack.example.com')}/services/T000/B000/XXXX` }),
  read: (request) => {
    const { text, blocks } = slackTexts(request.body);
    return unescape([text, ...blocks].join('\n'));
  },
  raw: (request) => {
    // Header text is plain_text, never parsed; the mrkdwn of the sections must hold no live mention or tag.
    const { blocks } = slackTexts(request.body);
    assert.ok(
      !blocks.slice(1).some((b) => b.includes('<!channel>') || b.includes('<script>')),
      'no live mention or tag',
    );
    assert.ok(blocks[1]!.includes('&lt;!channel&gt;'), blocks[1]);
  },
});

it('slack: a text fallback, a header, one section per item', async () => {
  await send(notification([downItem(1), downItem(2)]));
  const body = JSON.parse(fake().accepted[0]!.body) as { text: string; blocks: { type: string }[] };
  assert.equal(body.text, '2 devices down');
  assert.deepEqual(
    body.blocks.map((b) => b.type),
    ['header', 'section', 'section'],
  );
});

it('slack: a channel the server disabled is named, with why and what it takes to send to it again', async () => {
  // A `channel.disabled` event carries the channel as answers show it (docs/notifications.md, "Messages").
  const channel = {
    id: 4,
    name: 'Ops room',
    type: 'discord',
    disabled_reason: 'http_404',
    previous_status: 'enabled',
    status: 'disabled',
  };
  const disabled = {
    id: 77,
    type: 'channel.disabled' as EventType,
    user_id: 1,
    created_at: T0,
    data: channel as unknown as EventData,
  };
  const text = await send(notification([{ reason: 'event', event: disabled, incident: null }]));
  assert.ok(text.includes('Ops room was disabled (http_404)'), text);
  assert.ok(text.includes('nothing is sent to it until it is mended and enabled'), text);
  assert.ok(text.includes('https://monitoring.example.com/v1/channels/get?id=4'), text);
});
