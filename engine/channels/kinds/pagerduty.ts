/**
 * PagerDuty's Events API v2 at `<pagerduty-events-url>`: one event per item, never grouped (its
 * own grouping does the rest). An incident is one alert: `trigger` when it opens (and on a
 * reminder or escalation, which PagerDuty folds into the open alert), `acknowledge`, `resolve`
 * when it closes, all with the `dedup_key` naming it. An event that belongs to no incident (a TLS
 * warning) triggers an alert of its own.
 */
import type { EventItem, Notification, PagerDutySeverity } from '../../../core/internal.ts';
import { judgeHttpAnswer, REFUSED_CREDENTIALS } from '../answers.ts';
import type { HttpKind, HttpMessage, RenderContext } from '../kind.ts';
import { describe, type ItemSummary } from '../message/describe.ts';
import { truncate } from '../message/text.ts';

const SUMMARY = 1024;
const SOURCE = 255;

const request = (context: RenderContext, event: Record<string, unknown>): HttpMessage => ({
  url: context.pagerdutyEventsUrl,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(event),
});

function severityOf(item: ItemSummary, configured: PagerDutySeverity): PagerDutySeverity {
  if (item.tone === 'down') return configured;
  return item.tone === 'warning' ? 'warning' : 'info';
}

function trigger(item: ItemSummary, dedupKey: string, severity: PagerDutySeverity, context: RenderContext) {
  const first = item.why[0]?.text;
  return {
    event_action: 'trigger',
    dedup_key: dedupKey,
    payload: {
      summary: truncate(`${item.name} ${item.what}${first === undefined ? '' : `: ${first}`}`, SUMMARY),
      source: truncate(item.source, SOURCE),
      severity,
      timestamp: item.at,
      ...(item.eventType === null ? {} : { class: item.eventType }),
      custom_details: {
        what: `${item.name} ${item.what}`,
        when: item.when,
        why: item.why.map((why) => (why.link === null ? why.text : `${why.text} (${why.link.url})`)),
      },
    },
    client: 'monitoring-api',
    ...(context.publicUrl === null ? {} : { client_url: context.publicUrl }),
    ...(item.link === null ? {} : { links: [{ href: item.link, text: 'Details' }] }),
  };
}

export const pagerduty: HttpKind<'pagerduty'> = {
  type: 'pagerduty',
  transport: 'http',
  groups: false,
  spacingMs: 0,
  render(config, notification, context) {
    const key = config.routing_key;
    return notification.items.flatMap((item) => {
      const one: Notification = { at: notification.at, items: [item], total: 1 };
      const summary = describe(one, context.publicUrl).items[0]!;
      if (item.reason === 'test') {
        // A test opens an alert and resolves it at once: nobody is left paged by a test.
        const dedupKey = `monitoring-api/test-${item.channel.id}-${Date.parse(notification.at)}`;
        return [
          request(context, { routing_key: key, ...trigger(summary, dedupKey, 'info', context) }),
          request(context, { routing_key: key, event_action: 'resolve', dedup_key: dedupKey }),
        ];
      }
      const dedupKey = `monitoring-api/${summary.incident?.key ?? `event-${(item as EventItem).event.id}`}`;
      if (summary.incident?.closes === true) {
        return [request(context, { routing_key: key, event_action: 'resolve', dedup_key: dedupKey })];
      }
      if (item.reason === 'acknowledgement') {
        return [request(context, { routing_key: key, event_action: 'acknowledge', dedup_key: dedupKey })];
      }
      return [
        request(context, {
          routing_key: key,
          ...trigger(summary, dedupKey, severityOf(summary, config.severity), context),
        }),
      ];
    });
  },
  judge: (answer, nowMs) => judgeHttpAnswer(answer, nowMs, REFUSED_CREDENTIALS),
};
