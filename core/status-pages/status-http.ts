import type { ApiResponse } from '../http/api-response.ts';
import type { OwnedStatusPage } from '../records/index.ts';
import { renderFeed } from './atom-feed.ts';
import { renderBadge, type BadgeQuestion } from './badge-svg.ts';
import { chooseEncoding } from './encodings.ts';
import { PAGE_STYLE } from './page-style.ts';
import { renderStatusPage } from './render-page.ts';
import type { StatusAnswers } from './status-answers.ts';
import type { StatusKeeper } from './status-keeper.ts';
import type { StatusView } from './status-view.ts';
import { statusSummary } from './summary-json.ts';

// A public status answer as HTTP (docs/status-pages.md, "The page" and "Caching and conditional requests"): what the
// page shows now, written in the form asked, with an ETag (a request that names it gets 304),
// `Cache-Control: public, max-age=30`, compressed when the client accepts it, and headers that
// keep a browser from running or sniffing anything in it.

export type StatusForm = 'page' | 'summary' | 'feed' | 'badge';

const CONTENT_TYPES: Record<StatusForm, string> = {
  page: 'text/html; charset=utf-8',
  summary: 'application/json; charset=utf-8',
  feed: 'application/atom+xml; charset=utf-8',
  badge: 'image/svg+xml; charset=utf-8',
};

let styleSource: Promise<string> | undefined;

/** The page's style, as its CSP names it: the hash of its one inline style sheet. */
function styleHash(): Promise<string> {
  styleSource ??= crypto.subtle
    .digest('SHA-256', new TextEncoder().encode(PAGE_STYLE))
    .then((digest) => `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`);
  return styleSource;
}

/** The page may load nothing and run nothing; its style is its own inline sheet, its icon empty. */
async function pagePolicy(): Promise<string> {
  return `default-src 'none'; style-src ${await styleHash()}; img-src data:; script-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

/** Whether `If-None-Match` names `etag` (weak comparison, RFC 9110 §13.1.2), or is `*`. */
function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const mine = opaque(etag);
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === mine);
}

export interface StatusAsk {
  statusKeeper: StatusKeeper;
  statusAnswers: StatusAnswers;
  now: number;
  headers: { get(name: string): string | null };
  /** Where the page is served: `/status/<slug>`, or '' on its own hostname. */
  base: string;
  form: StatusForm;
  badge?: BadgeQuestion;
}

/** The text of `view` in the form asked. */
function written(view: StatusView, ask: StatusAsk): string {
  if (ask.form === 'page') return renderStatusPage(view, ask.base);
  if (ask.form === 'summary') return JSON.stringify(statusSummary(view));
  return ask.form === 'feed' ? renderFeed(view, ask.base) : renderBadge(view, ask.badge ?? {});
}

/** The answer to a public request for `page` in `ask.form`. */
export async function answerStatus(page: OwnedStatusPage, ask: StatusAsk): Promise<ApiResponse> {
  const { view, serial, kept: viewKept } = await ask.statusKeeper.view(page, ask.now);
  const question = ask.badge === undefined ? '' : ` ${ask.badge.component ?? ''} ${ask.badge.uptimeDays ?? ''}`;
  const key = `${page.id} ${ask.base} ${ask.form}${question}`;
  const encoding = chooseEncoding(ask.headers.get('accept-encoding'));
  const reused = ask.statusAnswers.kept(key, serial, encoding);
  const kept = await (reused ?? ask.statusAnswers.body(key, written(view, ask), encoding, serial));
  const headers: Record<string, string> = {
    'cache-control': 'public, max-age=30',
    // Whether the answer was sent as kept, neither read from the store nor written for this request.
    'x-cache': viewKept && reused !== undefined ? 'hit' : 'miss',
    etag: kept.etag,
    vary: 'Accept-Encoding',
    'x-content-type-options': 'nosniff',
    'content-security-policy': ask.form === 'page' ? await pagePolicy() : "default-src 'none'; frame-ancestors 'none'",
  };
  if (ask.form === 'page') headers['referrer-policy'] = 'no-referrer';
  // Read by other sites' scripts and dashboards, as Statuspage's are.
  else headers['access-control-allow-origin'] = '*';
  if (matches(ask.headers.get('if-none-match'), kept.etag)) return { status: 304, headers, body: '' };
  headers['content-type'] = CONTENT_TYPES[ask.form];
  if (kept.encoding !== null) headers['content-encoding'] = kept.encoding;
  return { status: 200, headers, body: '', bodyBytes: kept.body, bodyLength: kept.body.byteLength };
}
