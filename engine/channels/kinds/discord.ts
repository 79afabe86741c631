/**
 * Discord webhooks: one embed coloured by status, within Discord's limits (title 256, description
 * 4096, 6000 in all). Markdown in user text is escaped, and `allowed_mentions` is empty, so a
 * record named `@everyone` pings no one.
 */
import { DELETED_WEBHOOK, judgeHttpAnswer } from '../answers.ts';
import type { HttpKind } from '../kind.ts';
import { describe, type ItemSummary, type Tone } from '../message/describe.ts';
import { andMore, blocksWithin, linesWithin, shareOf, truncate } from '../message/text.ts';

const TITLE = 256;
const DESCRIPTION = 4096;

const COLOUR: Record<Tone, number> = {
  down: 0xd92d20,
  up: 0x2eb67d,
  warning: 0xecb22e,
  info: 0x4a90d9,
  test: 0x5865f2,
};

/** Discord's markdown, and `<` that starts a mention or an emoji, escaped with a backslash. */
const escape = (text: string) => text.replace(/[\\*_~`|<>[\]()@]/g, (c) => `\\${c}`);
const link = (url: string, label: string) => `[${escape(label)}](${url.replaceAll(')', '%29').replaceAll(' ', '%20')})`;

function block(item: ItemSummary, max: number): string {
  const lines = [
    `**${escape(item.name)}** ${escape(item.what)}`,
    escape(item.when),
    ...item.why.map(
      (why) => `• ${escape(why.text)}${why.link === null ? '' : ` ${link(why.link.url, why.link.label)}`}`,
    ),
  ];
  if (item.link !== null) lines.splice(2, 0, link(item.link, 'Details'));
  return linesWithin(lines, max);
}

export const discord: HttpKind<'discord'> = {
  type: 'discord',
  transport: 'http',
  groups: true,
  spacingMs: 10_000,
  render(config, notification, context) {
    const summary = describe(notification, context.publicUrl);
    const single = summary.items.length === 1 && summary.hidden === 0;
    const blocks = summary.items.map((item) =>
      block(item, single ? DESCRIPTION : shareOf(DESCRIPTION, summary.items.length, '\n\n')),
    );
    const description = blocksWithin(blocks, DESCRIPTION, summary.hidden, andMore, '\n\n').text;
    const embed = {
      title: truncate(escape(summary.title), TITLE),
      description,
      color: COLOUR[summary.tone],
      timestamp: notification.at,
      footer: { text: 'monitoring-api' },
    };
    return [
      {
        url: config.webhook_url,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ allowed_mentions: { parse: [] }, embeds: [embed] }),
      },
    ];
  },
  judge: (answer, nowMs) => judgeHttpAnswer(answer, nowMs, DELETED_WEBHOOK),
};
