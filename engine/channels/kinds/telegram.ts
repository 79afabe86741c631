/**
 * Telegram's Bot API: `sendMessage` at `<telegram-api-url>/bot<token>/sendMessage` with
 * `parse_mode: "HTML"`, user text escaped (`&`, `<`, `>`, `"`), at most 4096 characters.
 */
import { judgeHttpAnswer, REFUSED_CREDENTIALS } from '../answers.ts';
import type { HttpKind } from '../kind.ts';
import { describe, type ItemSummary, type Tone } from '../message/describe.ts';
import { andMore, blocksWithin, linesWithin, shareOf, truncate } from '../message/text.ts';

/** `sendMessage`'s limit, counted here on the text as sent, tags included: never over it once parsed. */
const TEXT = 4096;
const TITLE = 512;

const EMOJI: Record<Tone, string> = { down: '🔴', up: '🟢', warning: '⚠️', info: 'ℹ️', test: '👋' };

const escape = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
const link = (url: string, label: string) => `<a href="${escape(url)}">${escape(label)}</a>`;

function block(item: ItemSummary, max: number): string {
  const lines = [
    `${EMOJI[item.tone]} <b>${escape(item.name)}</b> ${escape(item.what)}`,
    `<i>${escape(item.when)}</i>`,
    ...item.why.map(
      (why) => `• ${escape(why.text)}${why.link === null ? '' : ` ${link(why.link.url, why.link.label)}`}`,
    ),
  ];
  if (item.link !== null) lines.splice(2, 0, link(item.link, 'Details'));
  return linesWithin(lines, max);
}

/** Telegram's own wait on a 429, in its body's `parameters.retry_after` (seconds). */
function bodyRetryAfterMs(body: string): number | null {
  try {
    const seconds = (JSON.parse(body) as { parameters?: { retry_after?: unknown } }).parameters?.retry_after;
    return typeof seconds === 'number' && seconds >= 0 ? Math.ceil(seconds * 1000) : null;
  } catch {
    return null;
  }
}

export const telegram: HttpKind<'telegram'> = {
  type: 'telegram',
  transport: 'http',
  groups: true,
  spacingMs: 10_000,
  render(config, notification, context) {
    const summary = describe(notification, context.publicUrl);
    const single = summary.items.length === 1 && summary.hidden === 0;
    const title = `<b>${escape(truncate(summary.title, TITLE))}</b>`;
    const room = TEXT - title.length - 2;
    const blocks = summary.items.map((item) =>
      block(item, single ? room : shareOf(room, summary.items.length, '\n\n')),
    );
    const list = blocksWithin(blocks, room, summary.hidden, (n) => escape(andMore(n)), '\n\n');
    return [
      {
        url: `${context.telegramApiUrl}/bot${config.bot_token}/sendMessage`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          chat_id: config.chat_id,
          text: `${title}\n\n${list.text}`,
          parse_mode: 'HTML',
          link_preview_options: { is_disabled: true },
        }),
      },
    ];
  },
  judge: (answer, nowMs) =>
    judgeHttpAnswer(answer, nowMs, REFUSED_CREDENTIALS, answer.status === null ? null : bodyRetryAfterMs(answer.body)),
};
