/** Discord messages through the fake webhook, which holds them to the embed limits. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { startFakeDiscord } from '../support/fakes/discord.ts';
import { kindScenarios } from './kind-scenarios.ts';
import { downItem, notification, T5, upItem } from './message-fixtures.ts';

interface Message {
  allowed_mentions: { parse: string[] };
  embeds: { title: string; description: string; color: number }[];
}

/** Markdown as read: bold markers gone, backslash escapes undone. */
const read = (text: string) => text.replace(/(?<!\\)\*\*/g, '').replace(/\\(.)/g, '$1');

const { fake, send } = kindScenarios({
  type: 'discord',
  start: startFakeDiscord,
  config: (f) => ({ webhook_url: `${f.url('discord.example.com')}/api/webhooks/1/token` }),
  read: (request) => {
    const [embed] = (JSON.parse(request.body) as Message).embeds;
    return read(`${embed!.title}\n${embed!.description}`);
  },
  raw: (request) => {
    const message = JSON.parse(request.body) as Message;
    assert.deepEqual(message.allowed_mentions, { parse: [] }, 'no mention pings anyone');
    assert.ok(!/(?<!\\)\[link\]/.test(message.embeds[0]!.description), 'no live link');
  },
});

it('discord: the embed is red for a down, green for a recovery', async () => {
  await send(notification([downItem(1)]));
  assert.equal((JSON.parse(fake().accepted[0]!.body) as Message).embeds[0]!.color, 0xd92d20);
  fake().accepted.length = 0;
  await send(notification([upItem(1)], T5));
  assert.equal((JSON.parse(fake().accepted[0]!.body) as Message).embeds[0]!.color, 0x2eb67d);
});
