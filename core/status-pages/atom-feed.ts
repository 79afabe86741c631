import type { Notice } from '../records/index.ts';
import { escapeMarkup as e } from './escape.ts';
import { localTime } from './page-time.ts';
import type { StatusView } from './status-view.ts';

// `feed.atom` (docs/status-pages.md, "Public routes"): the page's notices and maintenance as an
// Atom 1.0 feed (RFC 4287), newest first. Ids are tag URIs (RFC 4151) that never change for an
// entry; links are relative to the feed's own address, as RFC 4287 allows.

const iso = (ms: number) => new Date(ms).toISOString();

function text(view: StatusView, n: Notice): string {
  return [...n.updates]
    .reverse()
    .map((u) => `${localTime(Date.parse(u.at), view.page.time_zone)} ${u.status}: ${u.message}`)
    .join('\n\n');
}

/** The feed's XML; `base` as for the page. */
export function renderFeed(view: StatusView, base: string): string {
  const { page } = view;
  const tag = `tag:monitoring-api,${page.created_at.slice(0, 10)}:status-page/${page.id}`;
  const href = base === '' ? '/' : base;
  const entries = [
    ...view.feedNotices.map((n) => ({
      updated: Date.parse(n.updated_at),
      xml:
        `<entry><id>${tag}/notice/${n.id}</id><title>${e(n.title)} (${n.status})</title>` +
        `<updated>${n.updated_at}</updated><published>${n.created_at}</published>` +
        `<link rel="alternate" type="text/html" href="${href}"/>` +
        `<content type="text">${e(text(view, n))}</content></entry>`,
    })),
    ...view.maintenance.map((m) => ({
      updated: m.createdAt,
      xml:
        `<entry><id>${tag}/maintenance/${m.id}/${m.start}</id><title>Maintenance: ${e(m.name)}</title>` +
        `<updated>${iso(m.createdAt)}</updated><link rel="alternate" type="text/html" href="${href}"/>` +
        `<content type="text">${e(
          `From ${localTime(m.start, page.time_zone)} to ${localTime(m.end, page.time_zone)} (${page.time_zone}).`,
        )}</content></entry>`,
    })),
  ].sort((a, b) => b.updated - a.updated);
  const updated = Math.max(Date.parse(page.updated_at), ...entries.map((entry) => entry.updated));
  return (
    '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">' +
    `<id>${tag}</id><title>${e(page.title)} status</title><updated>${iso(updated)}</updated>` +
    `<author><name>${e(page.title)}</name></author>` +
    `<link rel="self" type="application/atom+xml" href="${base}/feed.atom"/>` +
    `<link rel="alternate" type="text/html" href="${href}"/>` +
    entries.map((entry) => entry.xml).join('') +
    '</feed>'
  );
}
