import type { Notice } from '../records/index.ts';
import { INDICATOR_WORDS, type ComponentView, type StatusView } from './status-view.ts';

// `summary.json`: Atlassian Statuspage's v2 summary (docs/status-pages.md, "Public routes"), so
// that what already reads Statuspage pages (dashboards, chat bots, aggregators) reads this one.
// Its members are Statuspage's own; `group_name` is ours. A component that is not monitored is
// left out: none of Statuspage's five states would be true of it.

const iso = (ms: number) => new Date(ms).toISOString();

/** The page's address: its own hostname, else its path here. */
export function pageUrl(view: StatusView): string {
  const { page } = view;
  return page.hostname === null ? `/status/${page.slug}` : `https://${page.hostname}`;
}

function componentEntry(view: StatusView, c: ComponentView) {
  return {
    id: `${view.page.id}-${c.index}`,
    name: c.name,
    status: c.status,
    created_at: view.page.created_at,
    updated_at: iso(c.updatedAt),
    position: c.index + 1,
    description: null,
    showcase: true,
    start_date: null,
    group_id: null,
    page_id: String(view.page.id),
    group: false,
    only_show_if_degraded: false,
    group_name: c.group,
  };
}

function componentsOf(view: StatusView, indexes: readonly number[]) {
  return indexes.flatMap((i) => {
    const c = view.components[i];
    return c === undefined || c.status === 'not_monitored' ? [] : [componentEntry(view, c)];
  });
}

function incident(view: StatusView, n: Notice) {
  const url = pageUrl(view);
  const monitoring = n.updates.find((u) => u.status === 'monitoring');
  return {
    id: String(n.id),
    name: n.title,
    status: n.status,
    created_at: n.created_at,
    updated_at: n.updated_at,
    monitoring_at: monitoring?.at ?? null,
    resolved_at: n.resolved_at,
    impact: n.impact,
    shortlink: url,
    started_at: n.created_at,
    page_id: String(view.page.id),
    incident_updates: n.updates
      .map((u, i) => ({
        id: `${n.id}-${i}`,
        status: u.status,
        body: u.message,
        incident_id: String(n.id),
        created_at: u.at,
        updated_at: u.at,
        display_at: u.at,
        affected_components: null,
        deliver_notifications: false,
        custom_tweet: null,
        tweet_id: null,
      }))
      .reverse(),
    components: componentsOf(view, n.component_indexes),
  };
}

/** The summary's object (serialised by the route). */
export function statusSummary(view: StatusView) {
  const url = pageUrl(view);
  return {
    page: {
      id: String(view.page.id),
      name: view.page.title,
      url,
      time_zone: view.page.time_zone,
      updated_at: iso(view.updatedAt),
    },
    status: { indicator: view.indicator, description: INDICATOR_WORDS[view.indicator] },
    components: view.components.filter((c) => c.status !== 'not_monitored').map((c) => componentEntry(view, c)),
    incidents: view.activeNotices.map((n) => incident(view, n)),
    scheduled_maintenances: view.maintenance.map((m) => ({
      id: `${m.id}-${m.start}`,
      name: m.name,
      status: m.active ? 'in_progress' : 'scheduled',
      created_at: iso(m.createdAt),
      updated_at: iso(m.createdAt),
      monitoring_at: null,
      resolved_at: null,
      impact: 'maintenance',
      shortlink: url,
      started_at: iso(m.start),
      page_id: String(view.page.id),
      incident_updates: [],
      components: componentsOf(view, m.componentIndexes),
      scheduled_for: iso(m.start),
      scheduled_until: iso(m.end),
    })),
  };
}
