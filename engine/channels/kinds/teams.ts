/**
 * Microsoft Teams through a Workflows webhook: a message with one Adaptive Card attachment
 * (schema 1.4, which Workflows' "post card" accepts), under Teams' 28 KB message limit. Markdown
 * in user text is escaped with a backslash, so a name cannot make a link.
 */
import { DELETED_WEBHOOK, judgeHttpAnswer } from '../answers.ts';
import type { HttpKind } from '../kind.ts';
import { describe, type ItemSummary, type Tone } from '../message/describe.ts';
import { andMore, linesWithin } from '../message/text.ts';

/** One item's text: twenty fit well within 28 KB. */
const ITEM_TEXT = 1000;
const SINGLE_ITEM_TEXT = 8000;

const COLOUR: Record<Tone, string> = {
  down: 'Attention',
  up: 'Good',
  warning: 'Warning',
  info: 'Accent',
  test: 'Accent',
};

const escape = (text: string) => text.replace(/[\\*_~`<>[\]()#+!-]/g, (c) => `\\${c}`);
const link = (url: string, label: string) => `[${escape(label)}](${url.replaceAll(')', '%29').replaceAll(' ', '%20')})`;

function itemBlocks(item: ItemSummary, max: number): unknown[] {
  const details = [
    escape(item.when),
    ...item.why.map(
      (why) => `- ${escape(why.text)}${why.link === null ? '' : ` ${link(why.link.url, why.link.label)}`}`,
    ),
  ];
  if (item.link !== null) details.push(link(item.link, 'Details'));
  return [
    {
      type: 'TextBlock',
      text: `**${escape(item.name)}** ${escape(item.what)}`,
      wrap: true,
      spacing: 'Medium',
      color: COLOUR[item.tone],
    },
    {
      type: 'TextBlock',
      text: linesWithin(details, max).replaceAll('\n', '\n\n'),
      wrap: true,
      isSubtle: true,
      spacing: 'None',
    },
  ];
}

export const teams: HttpKind<'teams'> = {
  type: 'teams',
  transport: 'http',
  groups: true,
  spacingMs: 10_000,
  render(config, notification, context) {
    const summary = describe(notification, context.publicUrl);
    const single = summary.items.length === 1 && summary.hidden === 0;
    const body: unknown[] = [
      {
        type: 'TextBlock',
        text: escape(summary.title),
        weight: 'Bolder',
        size: 'Medium',
        wrap: true,
        color: COLOUR[summary.tone],
      },
      ...summary.items.flatMap((item) => itemBlocks(item, single ? SINGLE_ITEM_TEXT : ITEM_TEXT)),
    ];
    if (summary.hidden > 0)
      body.push({ type: 'TextBlock', text: escape(andMore(summary.hidden)), wrap: true, isSubtle: true });
    const only = single ? summary.items[0] : undefined;
    const card = {
      $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
      type: 'AdaptiveCard',
      version: '1.4',
      body,
      ...(only?.link == null ? {} : { actions: [{ type: 'Action.OpenUrl', title: 'Details', url: only.link }] }),
    };
    return [
      {
        url: config.webhook_url,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'message',
          attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }],
        }),
      },
    ];
  },
  judge: (answer, nowMs) => judgeHttpAnswer(answer, nowMs, DELETED_WEBHOOK),
};
