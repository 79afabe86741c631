/**
 * Email: one mail, multipart text and HTML, through the operator's SMTP server. Its Message-ID
 * names the incident (`<device-incident-12@mail-domain>`), so the recovery, a reminder or an
 * acknowledgement answers the down mail (`In-Reply-To`, `References`) and a mail client shows one
 * incident as one thread, with nothing stored to find the down mail again.
 */
import type { MailKind, MailMessage } from '../kind.ts';
import { describe, type ItemSummary, type MessageSummary } from '../message/describe.ts';
import { andMore, oneLine, truncate } from '../message/text.ts';

const SUBJECT = 200;

const html = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
const COLOUR = { down: '#d92d20', up: '#2eb67d', warning: '#b7791f', info: '#4a90d9', test: '#5865f2' } as const;

function textItem(item: ItemSummary): string {
  const lines = [`${item.name} ${item.what}`, `  ${item.when}`];
  for (const why of item.why)
    lines.push(`  - ${why.text}${why.link === null ? '' : ` (${why.link.label}: ${why.link.url})`}`);
  if (item.link !== null) lines.push(`  ${item.link}`);
  return lines.join('\n');
}

function htmlItem(item: ItemSummary): string {
  const why = item.why.map(
    (line) =>
      `<li>${html(line.text)}${line.link === null ? '' : ` <a href="${html(line.link.url)}">${html(line.link.label)}</a>`}</li>`,
  );
  return [
    `<li style="margin-bottom:12px"><strong style="color:${COLOUR[item.tone]}">${html(item.name)}</strong> ${html(item.what)}`,
    `<br><span style="color:#555">${html(item.when)}</span>`,
    why.length > 0 ? `<ul>${why.join('')}</ul>` : '',
    item.link === null ? '' : `<br><a href="${html(item.link)}">Details</a>`,
    '</li>',
  ].join('');
}

function bodies(summary: MessageSummary): { text: string; html: string } {
  const more = summary.hidden > 0 ? andMore(summary.hidden) : null;
  const text = [
    summary.title,
    '',
    ...summary.items.map(textItem),
    ...(more === null ? [] : ['', more]),
    '',
    '-- ',
    'monitoring-api',
  ];
  const body = [
    `<h2 style="font-size:16px;color:${COLOUR[summary.tone]}">${html(summary.title)}</h2>`,
    `<ul style="padding-left:18px">${summary.items.map(htmlItem).join('')}</ul>`,
    more === null ? '' : `<p>${html(more)}</p>`,
    '<p style="color:#888;font-size:12px">monitoring-api</p>',
  ];
  return {
    text: text.join('\n'),
    html: `<!DOCTYPE html><html><body style="font-family:sans-serif">${body.join('')}</body></html>`,
  };
}

/**
 * The mail's ids: an item that opens an incident (or tells it whole) starts its thread, whose id
 * is the incident's; any other item about an incident answers that id. A mail about several
 * incidents answers all of them (References lists each).
 */
function threading(summary: MessageSummary, at: number, domain: string, fallback: string) {
  const opening = (key: string) => `<${key}@${domain}>`;
  const incidents = summary.items.flatMap((item) => (item.incident === null ? [] : [{ item, ref: item.incident }]));
  const answered = [...new Set(incidents.filter(({ ref }) => !ref.opens).map(({ ref }) => opening(ref.key)))];
  const first = incidents[0];
  let messageId: string;
  if (first === undefined) messageId = `<${fallback}.${at}@${domain}>`;
  else if (first.ref.opens) messageId = opening(first.ref.key);
  else {
    const what = first.ref.closes
      ? 'closed'
      : first.item.reason === 'acknowledgement'
        ? 'acknowledged'
        : `${first.item.reason}-${at}`;
    messageId = `<${first.ref.key}.${what}@${domain}>`;
  }
  return { messageId, inReplyTo: answered[0] ?? null, references: answered };
}

export const email: MailKind = {
  type: 'email',
  transport: 'smtp',
  groups: true,
  spacingMs: 60_000,
  render(config, notification, context): MailMessage {
    const summary = describe(notification, context.publicUrl);
    const at = Date.parse(notification.at);
    const first = notification.items[0];
    const fallback =
      first === undefined
        ? 'message'
        : first.reason === 'test'
          ? `test-channel-${first.channel.id}`
          : `event-${first.event.id}`;
    return {
      to: config.to,
      subject: truncate(oneLine(summary.title), SUBJECT),
      ...bodies(summary),
      ...threading(summary, at, context.mailDomain, fallback),
      date: new Date(at),
    };
  },
};
