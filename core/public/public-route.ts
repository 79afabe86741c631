import type { ApiRequest, ParsedUrl } from '../http/api-request.ts';
import type { ApiResponse } from '../http/api-response.ts';
import type { StatusAnswers } from '../status-pages/status-answers.ts';
import type { StatusKeeper } from '../status-pages/status-keeper.ts';
import type { Store } from '../store/store.ts';
import type { TableRoute } from '../routes/route-table.ts';

/**
 * What a public route (one answered without a key, outside the base path: docs/contract.md §1,
 * "Public routes") may use: the request, the parameters its path took, the host it was asked of,
 * the clock's reading, the client's address and the API's parts.
 */
export interface PublicCall {
  readonly request: ApiRequest;
  readonly url: ParsedUrl;
  readonly params: Readonly<Record<string, string>>;
  /**
   * The host the request names (its URL's, else its `Host` field), lower-case, without port or
   * final dot; read for the routes a page's hostname serves (`byHost`) only, null on the others.
   */
  readonly host: string | null;
  /** The clock's reading when the request arrived, ms since the epoch. */
  readonly now: number;
  /** The client's address, after `trustProxy`. */
  readonly clientIp: string | null;
  readonly store: Store;
  readonly statusAnswers: StatusAnswers;
  readonly statusKeeper: StatusKeeper;
}

/**
 * A public route's answer; undefined passes the request on to the API, as if no public route
 * matched. An answer known without waiting (a kept status answer) is returned as it is, not in a
 * Promise: each Promise an answer passes through is a turn of the microtask queue.
 */
export type PublicHandler = (call: PublicCall) => ApiResponse | undefined | Promise<ApiResponse | undefined>;

export interface PublicEndpoint {
  handler: PublicHandler;
  /**
   * Whether the path is one only a page's own hostname serves (`/summary.json`): asked of any other
   * host, or with another method, it is not a public route at all.
   */
  byHost: boolean;
  /**
   * Whether the route answers in plain text, as Healthchecks' ping API does: then its first segment
   * is the table's whole (`/ping` too), and a path there that no route takes is `404 not found`,
   * another method `405 method not allowed`, in text rather than the API's JSON errors.
   */
  text: boolean;
}

/** An entry of the public route table: a method, a path pattern (`/status/:slug`) and its endpoint. */
export type PublicRoute = TableRoute<PublicEndpoint>;

/** Plain text answers, as the text routes give (Healthchecks' ping API answers in text). */
export function textResponse(status: number, text: string, headers: Record<string, string> = {}): ApiResponse {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers }, body: text };
}
