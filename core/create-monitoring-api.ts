import { KeyAdmin } from './admin/key-admin.ts';
import { AuthThrottled, createAuthenticator, usable } from './auth/authenticator.ts';
import { bearerToken } from './auth/bearer-token.ts';
import { KeyCache } from './auth/key-cache.ts';
import { KeyUsageRecorder } from './auth/key-usage-recorder.ts';
import { systemClock, toTimestamp } from './clock.ts';
import { ApiError } from './http/api-error.ts';
import { errors } from './http/errors.ts';
import { fromWebRequest, parseRequestUrl, type ApiRequest, type RequestContext } from './http/api-request.ts';
import { errorResponse, toWebResponse, type ApiResponse } from './http/api-response.ts';
import { rateLimitHeaders } from './http/rate-limit-headers.ts';
import { requestId } from './http/request-id.ts';
import { MemoryRateLimiter } from './memory-rate-limiter.ts';
import { addressBucket } from './net/address-bucket.ts';
import { clientIp } from './net/client-ip.ts';
import { ipAllowList } from './net/ip-allow-list.ts';
import { createIpMatcher } from './net/ip-matcher.ts';
import { DEFAULTS, normalizeBasePath, type MonitoringApiOptions } from './options.ts';
import type { ApiKey } from './records.ts';
import type { RateLimitDecision } from './rate-limiter.ts';
import { ListCache } from './routes/list-cache.ts';
import { createRouter } from './routes/router.ts';
import { MissingTableError } from './store.ts';

export interface MonitoringApi {
  /** Answers a Web `Request`: the whole API as one fetch handler. */
  fetch(request: Request, context?: RequestContext): Promise<Response>;
  /** The same, for adapters that pass a lighter request and write the answer themselves. */
  handle(request: ApiRequest, context: RequestContext): Promise<ApiResponse>;
  /** Whether a path lies under the base path; embedding adapters pass other paths to the host. */
  owns(pathname: string): boolean;
  readonly basePath: string;
  /** Users and keys, for the host (never exposed over HTTP). Revocations here take effect at once. */
  readonly keys: KeyAdmin;
  /** Writes pending key usage and releases what the API created itself (not the store). */
  close(): Promise<void>;
}

const WWW_AUTHENTICATE = 'Bearer realm="monitoring"';

export function createMonitoringApi(options: MonitoringApiOptions): MonitoringApi {
  const store = options.store;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? {};
  const ownLimiter = options.rateLimiter === undefined;
  const limiter = options.rateLimiter ?? new MemoryRateLimiter({ clock });
  const defaultPolicy = options.rateLimit ?? DEFAULTS.rateLimit;
  const authPolicy = options.authFailureLimit ?? DEFAULTS.authFailureLimit;
  const basePath = normalizeBasePath(options.basePath ?? DEFAULTS.basePath);
  const bodyLimit = options.bodyLimit ?? DEFAULTS.bodyLimit;
  const allowPrivateTargets = options.allowPrivateTargets ?? false;
  const trustedProxies = options.trustProxy?.length ? createIpMatcher(options.trustProxy) : null;
  const keyCache = new KeyCache(store, options.keyCacheTtlMs ?? DEFAULTS.keyCacheTtlMs);
  const usage = new KeyUsageRecorder(store, (error) => logger.error?.('recording key usage failed', error));
  const allowLists = new WeakMap<ApiKey, (ip: string | null) => boolean>();
  const route = createRouter();
  const listCache = new ListCache();
  const authenticate = createAuthenticator(keyCache, limiter, authPolicy);
  const keys = new KeyAdmin(store, clock, (keyId) => keyCache.forget(keyId));

  function authThrottled(decision: RateLimitDecision, headers: Record<string, string>): ApiError {
    Object.assign(headers, rateLimitHeaders('failed-auth', decision, authPolicy, false));
    return errors.authThrottled();
  }

  const owns = (pathname: string) => pathname === basePath || pathname.startsWith(`${basePath}/`);

  /** Steps 1-3 of docs/contract.md §2: who calls, from where, and how often. */
  async function admit(request: ApiRequest, ip: string | null, now: number, headers: Record<string, string>): Promise<ApiKey> {
    const token = bearerToken(request.headers.get('authorization'));
    if (token === undefined) throw errors.missingApiKey();
    const failures = `auth:${addressBucket(ip)}`;
    const throttle = await limiter.consume(failures, authPolicy, 0);
    if (!throttle.allowed) throw authThrottled(throttle, headers);
    let key = token !== null ? keyCache.peek(token, now) : undefined;
    if (!usable(key, now)) {
      try {
        key = await authenticate(token, failures, now);
      } catch (error) {
        throw error instanceof AuthThrottled ? authThrottled(error.decision, headers) : error;
      }
    }
    let allow = allowLists.get(key);
    if (allow === undefined) allowLists.set(key, (allow = ipAllowList(key.allowed_ips)));
    const policy = key.rate_limit ?? defaultPolicy;
    if (!allow(ip)) {
      // The key is authenticated, so the answer shows its quota (docs/contract.md §3), uncounted: the
      // refused request never reached the rate-limit step.
      const quota = await limiter.consume(`key:${key.id}`, policy, 0);
      Object.assign(headers, rateLimitHeaders('key', { ...quota, allowed: true }, policy, true));
      throw errors.ipNotAllowed();
    }

    const decision = await limiter.consume(`key:${key.id}`, policy, 1);
    Object.assign(headers, rateLimitHeaders('key', decision, policy, true));
    if (!decision.allowed) throw errors.rateLimited();
    usage.record(key.id, now);
    return key;
  }

  async function handle(request: ApiRequest, context: RequestContext): Promise<ApiResponse> {
    const started = performance.now();
    const id = requestId(request.headers);
    const url = parseRequestUrl(request.url);
    const ip = clientIp(context.clientAddress, request.headers, trustedProxies);
    const headers: Record<string, string> = {};
    let keyId: number | null = null;
    let code: string | undefined;
    let response: ApiResponse;
    try {
      if (!owns(url.pathname)) throw errors.unknownRoute(null);
      const now = clock.now();
      const key = await admit(request, ip, now, headers);
      keyId = key.id;
      let path = url.pathname.slice(basePath.length);
      if (path.endsWith('/')) path = path.slice(0, -1);
      response = await route(path, { request, url, key, now, store, bodyLimit, allowPrivateTargets, listCache });
    } catch (error) {
      const apiError = asApiError(error, id);
      code = apiError.code;
      response = errorResponse(apiError);
      if (response.status === 401) response.headers['www-authenticate'] = WWW_AUTHENTICATE;
    }
    Object.assign(response.headers, headers);
    response.headers['x-request-id'] = id;
    logger.request?.({
      time: toTimestamp(Date.now()),
      request_id: id,
      method: request.method,
      path: url.pathname,
      status: response.status,
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
      client_ip: ip,
      key_id: keyId,
      ...(code === undefined ? {} : { code }),
    });
    return response;
  }

  function asApiError(error: unknown, id: string): ApiError {
    if (error instanceof ApiError) return error;
    if (error instanceof MissingTableError) {
      logger.error?.('the store has no schema', error, id);
      return errors.missingTable();
    }
    logger.error?.('unexpected failure', error, id);
    return errors.serverError();
  }

  return {
    basePath,
    keys,
    owns,
    handle,
    async fetch(request, context = { clientAddress: null }) {
      return toWebResponse(await handle(fromWebRequest(request), context));
    },
    async close() {
      await usage.flush();
      if (ownLimiter) await limiter.close?.();
    },
  };
}
