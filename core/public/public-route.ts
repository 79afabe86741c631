import type { ApiRequest, ParsedUrl } from '../http/api-request.ts';
import type { ApiResponse } from '../http/api-response.ts';
import type { StatusAnswers } from '../status-pages/status-answers.ts';
import type { Store } from '../store/store.ts';
import type { TableRoute } from '../routes/route-table.ts';

/**
 * What a public route (one answered without a key, outside the base path: docs/status-pages.md)
 * may use: the request, the parameters its path took, the host it was asked of, the clock's
 * reading and the API's parts.
 */
export interface PublicCall {
  readonly request: ApiRequest;
  readonly url: ParsedUrl;
  readonly params: Readonly<Record<string, string>>;
  /** The host the request names (its URL's, else its `Host` field), lower-case, without port or final dot. */
  readonly host: string | null;
  readonly now: number;
  readonly store: Store;
  readonly statusAnswers: StatusAnswers;
}

/** A public route's answer; undefined passes the request on to the API, as if no public route matched. */
export type PublicHandler = (call: PublicCall) => Promise<ApiResponse | undefined>;

export interface PublicEndpoint {
  handler: PublicHandler;
  /**
   * Whether the path is one only a page's own hostname serves (`/summary.json`): asked of any other
   * host, or with another method, it is not a public route at all.
   */
  byHost: boolean;
}

/** An entry of the public route table: a method, a path pattern (`/status/:slug`) and its endpoint. */
export type PublicRoute = TableRoute<PublicEndpoint>;
