import type { Notice, NoticeImpact } from '../records/index.ts';
import { escapeLines, escapeMarkup as e } from './escape.ts';
import { localTime } from './page-time.ts';
import { PAGE_STYLE } from './page-style.ts';
import { INDICATOR_WORDS, STATUS_WORDS, type ComponentView, type ShownStatus, type StatusView } from './status-view.ts';

// The status page as HTML (docs/status-pages.md, "The page"): server-rendered, complete without
// JavaScript, one style sheet inline, every text the owner wrote escaped. `base` is where the page
// is served (`/status/<slug>`, or '' on its own hostname), for its links to the feed and summary.

const STATE_CLASS: Record<ShownStatus, string> = {
  operational: 'ok',
  degraded_performance: 'minor',
  partial_outage: 'minor',
  major_outage: 'major',
  under_maintenance: 'maintenance',
  not_monitored: 'none',
};
const INDICATOR_CLASS = { none: 'ok', minor: 'minor', major: 'major', critical: 'major', maintenance: 'maintenance' };
const IMPACT_CLASS: Record<NoticeImpact, string> = { none: 'none', minor: 'minor', major: 'major', critical: 'major' };
const NOTICE_WORDS = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
};
const LEGEND: [string, string][] = [
  ['ok', 'No downtime'],
  ['minor', 'Some downtime (under 5 %) or a listing'],
  ['major', 'Down 5 % of the day or more'],
  ['maintenance', 'Maintenance only'],
  ['none', 'No data'],
];

const time = (at: number, zone: string) =>
  `<time datetime="${new Date(at).toISOString()}">${localTime(at, zone)}</time>`;

function names(view: StatusView, indexes: readonly number[]): string {
  return indexes.flatMap((i) => (view.components[i] === undefined ? [] : [e(view.components[i]!.name)])).join(', ');
}

function notice(view: StatusView, n: Notice): string {
  const zone = view.page.time_zone;
  const affects = names(view, n.component_indexes);
  const updates = [...n.updates]
    .reverse()
    .map(
      (u) =>
        `<li><p><strong>${NOTICE_WORDS[u.status]}</strong> · ${time(Date.parse(u.at), zone)}</p><p>${escapeLines(u.message)}</p></li>`,
    )
    .join('');
  return (
    `<article class="card"><div class="head"><h3>${e(n.title)}</h3>` +
    `<p class="state ${IMPACT_CLASS[n.impact]}">${NOTICE_WORDS[n.status]}</p></div>` +
    `<p class="meta">Impact: ${n.impact}${affects === '' ? '' : `. Affects: ${affects}`}</p>` +
    `<ol class="updates">${updates}</ol></article>`
  );
}

function component(view: StatusView, c: ComponentView, level: 3 | 4): string {
  const n = view.days.length;
  const bars = c.days.map((d) => `<li class="${d.level}"><span>${e(d.label)}</span></li>`).join('');
  const summary =
    c.kind !== 'blacklist_monitor'
      ? c.availability === null
        ? 'No availability counted yet'
        : `${c.availability} % available over ${n} days`
      : c.listedDays === 0
        ? `No listing in ${n} days`
        : `Listed on ${c.listedDays} of ${n} days`;
  return (
    `<article class="card"><div class="head"><h${level}>${e(c.name)}</h${level}>` +
    `<p class="state ${STATE_CLASS[c.status]}">${STATUS_WORDS[c.status]}</p></div>` +
    (c.target === null ? '' : `<p class="target">${e(c.target)}</p>`) +
    `<ol class="bars" aria-label="${e(c.name)}, each of the last ${n} days, oldest first">${bars}</ol>` +
    `<p class="range"><span>${n} days ago</span><span>${summary}</span><span>Today</span></p></article>`
  );
}

/** Components in their order, those of one group together under its name where the group first appears. */
function components(view: StatusView): string {
  const out: string[] = [];
  const done = new Set<string>();
  for (const c of view.components) {
    if (c.group === null) {
      out.push(component(view, c, 3));
      continue;
    }
    if (done.has(c.group)) continue;
    done.add(c.group);
    const members = view.components.filter((m) => m.group === c.group).map((m) => component(view, m, 4));
    out.push(`<section><h3>${e(c.group)}</h3>${members.join('')}</section>`);
  }
  return out.join('');
}

function maintenance(view: StatusView): string {
  if (view.maintenance.length === 0) return '';
  const zone = view.page.time_zone;
  const items = view.maintenance.map((m) => {
    const affects = names(view, m.componentIndexes);
    return (
      `<article class="card"><div class="head"><h3>${e(m.name)}</h3>` +
      `<p class="state maintenance">${m.active ? 'In progress' : 'Scheduled'}</p></div>` +
      `<p class="meta">${time(m.start, zone)} to ${time(m.end, zone)}${affects === '' ? '' : `. Affects: ${affects}`}</p></article>`
    );
  });
  return `<section aria-labelledby="maintenance"><h2 id="maintenance">Maintenance</h2>${items.join('')}</section>`;
}

function notices(view: StatusView, list: readonly Notice[], id: string, heading: string): string {
  if (list.length === 0) return '';
  return `<section aria-labelledby="${id}"><h2 id="${id}">${heading}</h2>${list.map((n) => notice(view, n)).join('')}</section>`;
}

/** The page's HTML. */
export function renderStatusPage(view: StatusView, base: string): string {
  const { page } = view;
  const title = e(page.title);
  const legend = LEGEND.map(([cls, words]) => `<li class="${cls}"><span></span>${words}</li>`).join('');
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    `<title>${title} status</title><link rel="icon" href="data:,">` +
    `<link rel="alternate" type="application/atom+xml" title="${title} notices" href="${base}/feed.atom">` +
    `<style>${PAGE_STYLE}</style></head><body>` +
    `<header><h1>${title}</h1>${page.description === null ? '' : `<p class="muted">${escapeLines(page.description)}</p>`}</header>` +
    `<main><p class="overall ${INDICATOR_CLASS[view.indicator]}">${INDICATOR_WORDS[view.indicator]}</p>` +
    notices(view, view.activeNotices, 'notices', 'Current notices') +
    maintenance(view) +
    `<section aria-labelledby="components"><h2 id="components">Components</h2>` +
    `<ul class="legend" aria-label="What the bars show">${legend}</ul>${components(view)}</section>` +
    notices(view, view.resolvedNotices, 'past', 'Resolved in the last 14 days') +
    `</main><footer><p>Times are in ${e(page.time_zone)}. Last change: ${time(view.updatedAt, page.time_zone)}. ` +
    `<a href="${base}/feed.atom">Atom feed</a> · <a href="${base}/summary.json">summary.json</a></p></footer>` +
    '</body></html>'
  );
}
