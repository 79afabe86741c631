/**
 * Slack incoming webhooks: `text` (the notification's fallback) and Block Kit `blocks`, within
 * Slack's limits (50 blocks, 3000 characters of section text, 150 of header text). User text is
 * escaped as Slack asks (`&`, `<`, `>`), so a name cannot make a link or an `@channel` mention.
 */
import { DELETED_WEBHOOK, judgeHttpAnswer } from '../answers.ts';
import type { HttpKind } from '../kind.ts';
import { describe, type ItemSummary, type Tone } from '../message/describe.ts';
import { andMore, linesWithin, truncate } from '../message/text.ts';

const SECTION_TEXT = 3000;
const HEADER_TEXT = 150;
/** Slack truncates `text` past 40 000 characters; a fallback is a line or two. */
const FALLBACK_TEXT = 3000;

const EMOJI: Record<Tone, string> = {
  down: ':red_circle:',
  up: ':large_green_circle:',
  warning: ':warning:',
  info: ':information_source:',
  test: ':wave:',
};

const escape = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const link = (url: string, label: string) => `<${escape(url).replaceAll('|', '%7C')}|${escape(label)}>`;

function section(item: ItemSummary): string {
  const lines = [
    `${EMOJI[item.tone]} *${escape(item.name)}* ${escape(item.what)}`,
    escape(item.when),
    ...item.why.map(
      (why) => `• ${escape(why.text)}${why.link === null ? '' : ` ${link(why.link.url, why.link.label)}`}`,
    ),
  ];
  if (item.link !== null) lines.splice(2, 0, link(item.link, 'Details'));
  return linesWithin(lines, SECTION_TEXT);
}

export const slack: HttpKind<'slack'> = {
  type: 'slack',
  transport: 'http',
  groups: true,
  spacingMs: 10_000,
  render(config, notification, context) {
    const summary = describe(notification, context.publicUrl);
    const blocks: unknown[] = [
      { type: 'header', text: { type: 'plain_text', text: truncate(summary.title, HEADER_TEXT), emoji: true } },
      ...summary.items.map((item) => ({ type: 'section', text: { type: 'mrkdwn', text: section(item) } })),
    ];
    if (summary.hidden > 0) {
      blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: andMore(summary.hidden) }] });
    }
    const only = summary.items.length === 1 && summary.hidden === 0 ? summary.items[0] : undefined;
    const fallback = only === undefined ? summary.title : `${summary.title}, ${only.when}`;
    return [
      {
        url: config.webhook_url,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ text: truncate(escape(fallback), FALLBACK_TEXT), blocks }),
      },
    ];
  },
  judge: (answer, nowMs) => judgeHttpAnswer(answer, nowMs, DELETED_WEBHOOK),
};
