/** Telegram messages through the fake Bot API, which parses their HTML as Telegram does. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { startFakeTelegram, telegramText } from '../support/fakes/telegram.ts';
import { kindScenarios } from './kind-scenarios.ts';
import { downItem, notification } from './message-fixtures.ts';

const TOKEN = '123456789:AAEexampleexampleexampleexample00';

const { fake, send } = kindScenarios({
  type: 'telegram',
  start: () => startFakeTelegram(TOKEN),
  config: () => ({ bot_token: TOKEN, chat_id: '-100123' }),
  options: (f) => ({ telegramApiUrl: f.url('api.telegram.example.com') }),
  // As read, with each link's address after its label (a reader sees it on hovering).
  read: (request) => {
    const { text } = JSON.parse(request.body) as { text: string };
    return telegramText(JSON.stringify({ text: text.replace(/<a href="([^"]*)">([^<]*)<\/a>/g, '$2 $1') }));
  },
  raw: (request) => {
    const { text } = JSON.parse(request.body) as { text: string };
    assert.ok(text.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'), text);
  },
});

it('telegram: sendMessage to the chat, in HTML, without link previews', async () => {
  await send(notification([downItem(1)]));
  const request = fake().accepted[0]!;
  assert.equal(request.path, `/bot${TOKEN}/sendMessage`);
  const body = JSON.parse(request.body) as Record<string, unknown>;
  assert.deepEqual(
    [body.chat_id, body.parse_mode, body.link_preview_options],
    ['-100123', 'HTML', { is_disabled: true }],
  );
});
