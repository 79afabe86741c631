import { availabilityReport } from '../reports/availability.ts';
import type { StatusTotals } from '../reports/report-records.ts';
import { totalsOfTimeline } from '../reports/timeline-totals.ts';
import { escapeMarkup as e } from './escape.ts';
import { INDICATOR_WORDS, STATUS_WORDS, type ShownStatus, type StatusView } from './status-view.ts';

// `badge.svg` (docs/status-pages.md, "Public routes"): the page's state, one component's
// (`?component=<index>`), or an availability over the last days (`?uptime=30d`), as a badge in the
// common two-part form. Its words say what its colour does, for readers who do not see colour.

export interface BadgeQuestion {
  /** A component's index; absent: the whole page. */
  component?: number;
  /** Days of availability up to now; absent: the state. */
  uptimeDays?: number;
}

const DAY_MS = 86_400_000;
const STATE_COLOUR: Record<ShownStatus, string> = {
  operational: '#1a7f37',
  degraded_performance: '#9a6700',
  partial_outage: '#9a6700',
  major_outage: '#cf222e',
  under_maintenance: '#0969da',
  not_monitored: '#57606a',
};
const INDICATOR_COLOUR = {
  none: '#1a7f37',
  minor: '#9a6700',
  major: '#cf222e',
  critical: '#cf222e',
  maintenance: '#0969da',
};

function sum(totals: readonly StatusTotals[]): StatusTotals {
  const out: StatusTotals = { ms: {}, down_periods: 0, longest_down_ms: 0 };
  for (const t of totals) {
    for (const [status, ms] of Object.entries(t.ms))
      out.ms[status as keyof StatusTotals['ms']] = (out.ms[status as keyof StatusTotals['ms']] ?? 0) + ms;
    out.down_periods += t.down_periods;
    out.longest_down_ms = Math.max(out.longest_down_ms, t.longest_down_ms);
  }
  return out;
}

/** The availability of the devices among the components asked, over the last `days` days. */
function uptime(view: StatusView, days: number, component: number | undefined): number | null {
  const from = view.now - days * DAY_MS;
  const asked = view.components.filter(
    (c) => c.kind !== 'blacklist_monitor' && (component === undefined || c.index === component),
  );
  if (asked.length === 0) return null;
  const totals = sum(asked.map((c) => totalsOfTimeline(c.changes, from, view.now)));
  const range = { from: new Date(from).toISOString(), to: new Date(view.now).toISOString() };
  return availabilityReport(range, totals).availability;
}

function uptimeColour(value: number | null): string {
  if (value === null) return '#57606a';
  if (value >= 99.9) return '#1a7f37';
  if (value >= 99) return '#4d7a00';
  return value >= 95 ? '#9a6700' : '#cf222e';
}

/** Percent to two decimals, never rounded up: 99.996 is 99.99, not 100. */
const percent = (value: number) => `${value === 100 ? '100' : (Math.floor(value * 100) / 100).toFixed(2)}%`;

/** The width a text takes at 11 px Verdana, near enough for a badge. */
const width = (text: string) => [...text].length * 7 + 12;

export function renderBadge(view: StatusView, question: BadgeQuestion): string {
  const c = question.component === undefined ? undefined : view.components[question.component];
  let label = c?.name ?? 'status';
  let value: string;
  let colour: string;
  if (question.uptimeDays !== undefined) {
    label = `${c === undefined ? 'uptime' : `${c.name} uptime`} ${question.uptimeDays}d`;
    const availability = uptime(view, question.uptimeDays, question.component);
    value = availability === null ? 'n/a' : percent(availability);
    colour = uptimeColour(availability);
  } else if (c !== undefined) {
    value = STATUS_WORDS[c.status].toLowerCase();
    colour = STATE_COLOUR[c.status];
  } else {
    value = INDICATOR_WORDS[view.indicator].toLowerCase();
    colour = INDICATOR_COLOUR[view.indicator];
  }
  const [lw, vw] = [width(label), width(value)];
  const words = e(`${label}: ${value}`);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${lw + vw}" height="20" role="img" aria-label="${words}">` +
    `<title>${words}</title><rect width="${lw}" height="20" fill="#3d444d"/>` +
    `<rect x="${lw}" width="${vw}" height="20" fill="${colour}"/>` +
    '<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">' +
    `<text x="${lw / 2}" y="14">${e(label)}</text><text x="${lw + vw / 2}" y="14">${e(value)}</text></g></svg>`
  );
}
