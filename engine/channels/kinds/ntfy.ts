/**
 * ntfy: a POST to `<server_url>/<topic>` whose body is the message in plain text (at most 4096
 * bytes, ntfy's default message limit) and whose headers say the rest: `Title` (RFC 2047 encoded
 * when not ASCII, which ntfy decodes), `Priority` (5 for a down, 3 for a recovery), `Tags` (an
 * emoji), `Click` (the link, with `--public-url`) and `Authorization: Bearer` when a token is set.
 */
import { judgeHttpAnswer, REFUSED_CREDENTIALS } from '../answers.ts';
import type { HttpKind } from '../kind.ts';
import { describe, type ItemSummary, type Tone } from '../message/describe.ts';
import { andMore, blocksWithin, linesWithin, oneLine, shareOf, truncate, utf8Bytes } from '../message/text.ts';

const BODY_BYTES = 4096;
const TITLE = 250;

const PRIORITY: Record<Tone, string> = { down: '5', warning: '4', up: '3', info: '3', test: '3' };
const TAGS: Record<Tone, string> = {
  down: 'rotating_light',
  up: 'white_check_mark',
  warning: 'warning',
  info: 'information_source',
  test: 'wave',
};

/** A header value: as it is when printable ASCII, else an RFC 2047 encoded word ntfy decodes. */
export function headerText(text: string): string {
  const line = oneLine(text);
  return /^[\x20-\x7e]*$/.test(line) ? line : `=?UTF-8?B?${Buffer.from(line, 'utf8').toString('base64')}?=`;
}

function block(item: ItemSummary, max: number): string {
  const lines = [
    `${item.name} ${item.what}`,
    item.when,
    ...item.why.map((why) => `- ${why.text}${why.link === null ? '' : ` (${why.link.label}: ${why.link.url})`}`),
  ];
  if (item.link !== null) lines.push(item.link);
  return linesWithin(lines, max, utf8Bytes);
}

export const ntfy: HttpKind<'ntfy'> = {
  type: 'ntfy',
  transport: 'http',
  groups: true,
  spacingMs: 10_000,
  render(config, notification, context) {
    const summary = describe(notification, context.publicUrl);
    const single = summary.items.length === 1 && summary.hidden === 0;
    const blocks = summary.items.map((item) =>
      block(item, single ? BODY_BYTES : shareOf(BODY_BYTES, summary.items.length, '\n\n')),
    );
    const body = blocksWithin(blocks, BODY_BYTES, summary.hidden, andMore, '\n\n', utf8Bytes).text;
    const headers: Record<string, string> = {
      'content-type': 'text/plain; charset=utf-8',
      title: headerText(truncate(summary.title, TITLE)),
      priority: PRIORITY[summary.tone],
      tags: TAGS[summary.tone],
    };
    const only = single ? summary.items[0] : undefined;
    if (only?.link != null) headers.click = only.link;
    if (config.token !== null) headers.authorization = `Bearer ${config.token}`;
    return [{ url: `${config.server_url.replace(/\/+$/, '')}/${config.topic}`, headers, body }];
  },
  judge: (answer, nowMs) => judgeHttpAnswer(answer, nowMs, REFUSED_CREDENTIALS),
};
