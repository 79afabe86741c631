/** Slack messages through the fake incoming webhook, which holds them to Block Kit's shape and limits. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { startFakeSlack, slackTexts } from '../support/fakes/slack.ts';
import { kindScenarios } from './kind-scenarios.ts';
import { downItem, notification } from './support.ts';

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
