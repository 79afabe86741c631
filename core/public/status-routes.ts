import * as v from 'valibot';
import { errors } from '../http/errors.ts';
import type { ApiResponse } from '../http/api-response.ts';
import type { OwnedStatusPage } from '../records/index.ts';
import { answerStatus, type StatusForm } from '../status-pages/status-http.ts';
import type { BadgeQuestion } from '../status-pages/badge-svg.ts';
import { issuesToDetails, type FieldHints } from '../validation/details.ts';
import { queryValues, refuseQuery } from '../validation/list-query.ts';
import { SLUG } from '../validation/status-page-input.ts';
import type { PublicCall, PublicEndpoint, PublicRoute } from './public-route.ts';

// The public routes of status pages (docs/status-pages.md, "Public routes"): at /status/<slug>,
// and the same at a page's own hostname without the prefix. An unknown slug, a page that is not
// public and a deleted one are the same 404; a hostname that is no public page's is not ours, and
// the API answers as it would without status pages.

const notFound = () => errors.notFound('status_page_not_found');

const badgeHints: FieldHints = {
  component: "the index of one of the page's components (0 is the first)",
  uptime: "a number of days up to the page's history_days, followed by d (30d)",
};
const BADGE_PARAMS = new Set(Object.keys(badgeHints));
const badgeSchema = v.object({
  component: v.optional(v.pipe(v.string(), v.regex(/^[0-9]{1,3}$/, 'invalid_value'), v.transform(Number))),
  uptime: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[0-9]{1,3}d$/, 'invalid_value'),
      v.transform((s) => Number(s.slice(0, -1))),
    ),
  ),
});

/** `?component=<index>&uptime=<n>d` of a badge, judged against the page. */
function badgeQuestion(query: string, page: OwnedStatusPage): BadgeQuestion {
  const { values, details } = queryValues(query, BADGE_PARAMS, badgeHints);
  for (const repeated of details) delete values[repeated.field];
  const parsed = v.safeParse(badgeSchema, values, { abortEarly: false });
  if (!parsed.success) details.push(...issuesToDetails(parsed.issues, badgeHints));
  const { component, uptime } = parsed.success ? parsed.output : {};
  const outOfRange = (field: string) => ({
    field,
    code: 'out_of_range' as const,
    message: `${field} must be ${badgeHints[field]}.`,
  });
  if (component !== undefined && component >= page.components.length) details.push(outOfRange('component'));
  if (uptime !== undefined && (uptime < 1 || uptime > page.history_days)) details.push(outOfRange('uptime'));
  if (details.length > 0) throw errors.validationFailed(details);
  return { component, uptimeDays: uptime };
}

function endpoint(form: StatusForm, byHost: boolean): PublicEndpoint {
  const answer = (call: PublicCall, page: OwnedStatusPage, badge?: BadgeQuestion) =>
    answerStatus(page, {
      statusKeeper: call.statusKeeper,
      statusAnswers: call.statusAnswers,
      now: call.now,
      headers: call.request.headers,
      base: byHost ? '' : `/status/${page.slug}`,
      form,
      badge: form === 'badge' ? (badge ?? badgeQuestion(call.url.query, page)) : undefined,
    });

  /** Judged by its host first: a host that is no public page's is not a status page request. */
  async function byHostname(call: PublicCall): Promise<ApiResponse | undefined> {
    if (call.host === null) return undefined;
    const address = { hostname: call.host };
    const page = call.statusKeeper.keptPage(address) ?? (await call.statusKeeper.findPage(address));
    if (page === undefined) return undefined;
    const badge = form === 'badge' ? badgeQuestion(call.url.query, page) : undefined;
    if (form !== 'badge') refuseQuery(call.url.query);
    return answer(call, page, badge);
  }

  return {
    byHost,
    text: false,
    // A kept page's kept answer is returned as it is, without a Promise (PublicHandler).
    handler(call: PublicCall): ApiResponse | Promise<ApiResponse | undefined> | undefined {
      if (byHost) return byHostname(call);
      if (form !== 'badge') refuseQuery(call.url.query);
      const slug = call.params.slug!;
      if (!SLUG.test(slug)) throw notFound();
      const page = call.statusKeeper.keptPage({ slug });
      if (page !== undefined) return answer(call, page);
      return call.statusKeeper.findPage({ slug }).then((found) => {
        if (found === undefined) throw notFound();
        return answer(call, found);
      });
    },
  };
}

const FILES: [StatusForm, string][] = [
  ['summary', 'summary.json'],
  ['feed', 'feed.atom'],
  ['badge', 'badge.svg'],
];

/** The status pages' public routes, for the public route table (core/public/public-routes.ts). */
export const STATUS_ROUTES: readonly PublicRoute[] = [
  { method: 'GET', path: '/status/:slug', value: endpoint('page', false) },
  ...FILES.map(([form, file]): PublicRoute => ({
    method: 'GET',
    path: `/status/:slug/${file}`,
    value: endpoint(form, false),
  })),
  { method: 'GET', path: '/', value: endpoint('page', true) },
  ...FILES.map(([form, file]): PublicRoute => ({ method: 'GET', path: `/${file}`, value: endpoint(form, true) })),
];
