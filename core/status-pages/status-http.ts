import type { ApiResponse } from '../http/api-response.ts';
import type { OwnedStatusPage } from '../records/index.ts';
import { renderFeed } from './atom-feed.ts';
import { renderBadge, type BadgeQuestion } from './badge-svg.ts';
import { chooseEncoding, type Encoding } from './encodings.ts';
import { PAGE_STYLE } from './page-style.ts';
import { renderStatusPage } from './render-page.ts';
import type { KeptBody, StatusAnswers } from './status-answers.ts';
import type { KeptView, StatusKeeper } from './status-keeper.ts';
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

const OTHER_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** The page's policy once its style's hash is known: every answer after the first sends the same string. */
let pagePolicy: string | undefined;
let pagePolicyMade: Promise<string> | undefined;

/**
 * The page may load nothing and run nothing; its style is its own inline sheet (named by its
 * SHA-256, as its CSP requires), its icon empty.
 */
function makePagePolicy(): Promise<string> {
  pagePolicyMade ??= crypto.subtle.digest('SHA-256', new TextEncoder().encode(PAGE_STYLE)).then((digest) => {
    const hash = `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`;
    return (pagePolicy = `default-src 'none'; style-src ${hash}; img-src data:; script-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`);
  });
  return pagePolicyMade;
}

/** Whether `If-None-Match` names `etag` (weak comparison, RFC 9110 §13.1.2), or is `*`. */
function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  // As a client sends back the one it was given.
  if (ifNoneMatch === etag) return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const mine = opaque(etag);
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === mine);
}

/** The encodings chosen for the `Accept-Encoding` fields seen: clients send a handful of them. */
const encodingsOf = new Map<string, Encoding | null>();

function encodingFor(accept: string | null): Encoding | null {
  if (accept === null) return null;
  let chosen = encodingsOf.get(accept);
  if (chosen === undefined) {
    chosen = chooseEncoding(accept);
    if (encodingsOf.size >= 64) encodingsOf.clear();
    encodingsOf.set(accept, chosen);
  }
  return chosen;
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

/**
 * The answer to a public request for `page` in `ask.form`. A kept view's kept answer is returned
 * as it is, without a Promise (status-keeper.ts, status-answers.ts): what most requests for a
 * page read hard get, a 304 the most of them.
 */
export function answerStatus(page: OwnedStatusPage, ask: StatusAsk): ApiResponse | Promise<ApiResponse> {
  const shown = ask.statusKeeper.keptView(page, ask.now);
  return shown === undefined ? readAndAnswer(page, ask) : answerFrom(page, shown, ask);
}

async function readAndAnswer(page: OwnedStatusPage, ask: StatusAsk): Promise<ApiResponse> {
  return answerFrom(page, await ask.statusKeeper.view(page, ask.now), ask);
}

/** The answer written from `shown`: the kept one when there is one, else written and kept. */
function answerFrom(page: OwnedStatusPage, shown: KeptView, ask: StatusAsk): ApiResponse | Promise<ApiResponse> {
  const question = ask.badge === undefined ? '' : ` ${ask.badge.component ?? ''} ${ask.badge.uptimeDays ?? ''}`;
  const key = `${page.id} ${ask.base} ${ask.form}${question}`;
  const encoding = encodingFor(ask.headers.get('accept-encoding'));
  const reused = ask.statusAnswers.kept(key, shown.serial, encoding);
  // Whether the answer was sent as kept, neither read from the store nor written for this request.
  const cache = shown.kept && reused !== undefined ? 'hit' : 'miss';
  const kept = reused ?? ask.statusAnswers.body(key, written(shown.view, ask), encoding, shown.serial);
  return kept instanceof Promise ? kept.then((body) => respond(body, ask, cache)) : respond(kept, ask, cache);
}

function respond(kept: KeptBody, ask: StatusAsk, cache: 'hit' | 'miss'): ApiResponse | Promise<ApiResponse> {
  const headers: Record<string, string> = {
    'cache-control': 'public, max-age=30',
    'x-cache': cache,
    etag: kept.etag,
    vary: 'Accept-Encoding',
  };
  // Read by other sites' scripts and dashboards, as Statuspage's are: a 304 too, when the script
  // asked with the ETag itself.
  if (ask.form !== 'page') headers['access-control-allow-origin'] = '*';
  // A 304 carries what guides a cache's update of what it holds, nothing that describes a body
  // (RFC 9110 §15.4.5): the 200's fields below stay with the answer the client kept.
  if (matches(ask.headers.get('if-none-match'), kept.etag)) return { status: 304, headers, body: '' };
  if (ask.form === 'page' && pagePolicy === undefined) return makePagePolicy().then(() => respond(kept, ask, cache));
  headers['x-content-type-options'] = 'nosniff';
  if (ask.form === 'page') {
    headers['content-security-policy'] = pagePolicy!;
    headers['referrer-policy'] = 'no-referrer';
  } else headers['content-security-policy'] = OTHER_POLICY;
  headers['content-type'] = CONTENT_TYPES[ask.form];
  if (kept.encoding !== null) headers['content-encoding'] = kept.encoding;
  return { status: 200, headers, body: '', bodyBytes: kept.body, bodyLength: kept.body.byteLength };
}
