import { DEFAULT_DNSBL_DOMAIN_ZONES, DEFAULT_DNSBL_ZONES, normalizeZones, type DnsblZoneLists } from './dnsbl/zones.ts';
import { KeyAdmin } from './admin/key-admin.ts';
import { AuthThrottled, createAuthenticator, usable } from './auth/authenticator.ts';
import { bearerToken } from './auth/bearer-token.ts';
import { KeyCache } from './auth/key-cache.ts';
import { KeyUsageRecorder } from './auth/key-usage-recorder.ts';
import { systemClock, toTimestamp } from './clock.ts';
import { ApiError, type HeaderFields } from './http/api-error.ts';
import { errors } from './http/errors.ts';
import { fromWebRequest, parseRequestUrl, type ApiRequest, type RequestContext } from './http/api-request.ts';
import { errorResponse, toWebResponse, type ApiResponse } from './http/api-response.ts';
import { keyQuotaHeaders } from './http/rate-limit-headers.ts';
import { requestId } from './http/request-id.ts';
import { MemoryRateLimiter } from './memory/memory-rate-limiter.ts';
import { consumeNowOf } from './store/rate-limiter.ts';
import { addressBucket } from './net/address-bucket.ts';
import { clientIp } from './net/client-ip.ts';
import { ipAllowList } from './net/ip-allow-list.ts';
import { createIpMatcher } from './net/ip-matcher.ts';
import {
  checkListBatchSize,
  DEFAULTS,
  normalizeBasePath,
  normalizePublicUrl,
  type MonitoringApiOptions,
} from './options.ts';
import { PingWriter } from './public/ping-writer.ts';
import type { RequestLogEntry } from './logger.ts';
import type { ApiKey } from './records/index.ts';
import { ListCache } from './routes/list-cache.ts';
import { ClosedDayCache } from './reports/closed-day-cache.ts';
import { RecentRecords } from './routes/recent-records.ts';
import { createRouter } from './routes/router.ts';
import { createPublicDispatcher } from './public/public-dispatcher.ts';
import { publicRoutes } from './public/public-routes.ts';
import { StatusAnswers } from './status-pages/status-answers.ts';
import { StatusKeeper } from './status-pages/status-keeper.ts';
import { MissingTableError } from './store/store.ts';

export interface MonitoringApi {
  /** Answers a Web `Request`: the whole API as one fetch handler. */
  fetch(request: Request, context?: RequestContext): Promise<Response>;
  /** The same, for adapters that pass a lighter request and write the answer themselves. */
  handle(request: ApiRequest, context: RequestContext): Promise<ApiResponse>;
  /**
   * Whether a path is the API's: under the base path, or a public route's (`/ping/...`,
   * `/status/...`; docs/contract.md §1); embedding adapters pass other paths to the host.
   */
  owns(pathname: string): boolean;
  readonly basePath: string;
  /** Users and keys, for the host (never exposed over HTTP). Revocations here take effect at once. */
  readonly keys: KeyAdmin;
  /** Writes pending key usage and pings, and releases what the API created itself (not the store). */
  close(): Promise<void>;
}

/** A request let through steps 1-3 of docs/contract.md §2: its key, and where that key's quota stands. */
interface Admitted {
  key: ApiKey;
  /** The rate-limit fields every later answer carries, success or error (docs/contract.md §3). */
  quota: HeaderFields;
}

/** Before the key is known, an answer carries no quota of its own (its error may carry another's). */
const NO_QUOTA: HeaderFields = Object.freeze({});

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
  const listBatchSize = checkListBatchSize(options.listBatchSize ?? DEFAULTS.listBatchSize);
  const allowPrivateTargets = options.allowPrivateTargets ?? false;
  const dnsblZones: DnsblZoneLists = {
    ip: normalizeZones(options.dnsblZones ?? DEFAULT_DNSBL_ZONES, 'a DNSBL zone'),
    domain: normalizeZones(options.dnsblDomainZones ?? DEFAULT_DNSBL_DOMAIN_ZONES, 'a DNSBL domain zone'),
  };
  const webhookSender = options.webhookSender;
  const channelSender = options.channelSender;
  const trustedProxies = options.trustProxy?.length ? createIpMatcher(options.trustProxy) : null;
  const keyCache = new KeyCache(store, options.keyCacheTtlMs ?? DEFAULTS.keyCacheTtlMs);
  const usage = new KeyUsageRecorder(store, (error) => logger.error?.('recording key usage failed', error));
  const allowLists = new WeakMap<ApiKey, (ip: string | null) => boolean>();
  const route = createRouter();
  const listCache = new ListCache();
  const closedDays = new ClosedDayCache();
  const recentRecords = new RecentRecords();
  const authenticate = createAuthenticator(keyCache, limiter, authPolicy);
  const keys = new KeyAdmin(store, clock, (keyId) => keyCache.forget(keyId));
  const publicUrl = options.publicUrl === undefined ? undefined : normalizePublicUrl(options.publicUrl);

  /** A limiter's decision, at once when it can make one without I/O (RateLimiter.consumeNow). */
  const consumeNow = consumeNowOf(limiter);

  // The routes answered outside the base path and without a key (docs/contract.md §1, "Public
  // routes"): the heartbeats' pings and the status pages.
  const pings = new PingWriter(
    (batch) => store.recordPings(batch),
    options.pingQueueLimit ?? DEFAULTS.pingQueueLimit,
    (error) => logger.error?.('recording pings failed; they were answered 503', error),
  );
  const statusAnswers = new StatusAnswers();
  const statusKeeper = new StatusKeeper(store, {
    figuresMaxAgeMs: options.statusFiguresMaxAgeMs ?? DEFAULTS.statusFiguresMaxAgeMs,
    maxPages: 256,
  });
  const publicDispatcher = createPublicDispatcher(
    publicRoutes({
      pings: {
        writer: pings,
        consume: (bucket, policy) => consumeNow?.(bucket, policy, 1) ?? limiter.consume(bucket, policy, 1),
      },
    }),
    { store, statusAnswers, statusKeeper },
  );

  const underBase = (pathname: string) => pathname === basePath || pathname.startsWith(`${basePath}/`);
  const owns = (pathname: string) => underBase(pathname) || publicDispatcher.owns(pathname);

  /**
   * Steps 1-3 of docs/contract.md §2: who calls, from where, and how often. A refusal is thrown
   * as an error that carries its own header fields (challenge, throttle, quota).
   */
  async function admit(request: ApiRequest, ip: string | null, now: number): Promise<Admitted> {
    const token = bearerToken(request.headers.get('authorization'));
    if (token === undefined) throw errors.missingApiKey();
    const failures = `auth:${addressBucket(ip)}`;
    const throttle = consumeNow?.(failures, authPolicy, 0) ?? (await limiter.consume(failures, authPolicy, 0));
    if (!throttle.allowed) throw errors.authThrottled(throttle, authPolicy);
    let key = token !== null ? keyCache.peek(token, now) : undefined;
    if (!usable(key, now)) {
      try {
        key = await authenticate(token, failures, now);
      } catch (error) {
        throw error instanceof AuthThrottled ? errors.authThrottled(error.decision, authPolicy) : error;
      }
    }
    let allow = allowLists.get(key);
    if (allow === undefined) allowLists.set(key, (allow = ipAllowList(key.allowed_ips)));
    const policy = key.rate_limit ?? defaultPolicy;
    // The key is authenticated, so a refusal at the allow-list shows its quota, asked uncounted
    // (cost 0): the request never reaches the rate-limit step.
    const bucket = `key:${key.id}`;
    if (!allow(ip))
      throw errors.ipNotAllowed(consumeNow?.(bucket, policy, 0) ?? (await limiter.consume(bucket, policy, 0)), policy);

    const decision = consumeNow?.(bucket, policy, 1) ?? (await limiter.consume(bucket, policy, 1));
    if (!decision.allowed) throw errors.rateLimited(decision, policy);
    usage.record(key.id, now);
    return { key, quota: keyQuotaHeaders(decision, policy) };
  }

  async function handle(request: ApiRequest, context: RequestContext): Promise<ApiResponse> {
    const started = performance.now();
    const id = requestId(request.headers);
    const url = parseRequestUrl(request.url);
    const ip = clientIp(context.clientAddress, request.headers, trustedProxies);
    let quota = NO_QUOTA;
    let keyId: number | null = null;
    let code: string | undefined;
    let response: ApiResponse;
    let loggedPath = url.pathname;
    try {
      // A public route answers without a key, so before the pipeline's first step: its answers
      // (the pings' text, as Healthchecks gives them; the status pages') carry no quota. It is
      // logged by its pattern (publicDispatcher.dispatch), never by a path with a ping's token.
      let answered =
        publicDispatcher.owns(url.pathname) || !underBase(url.pathname)
          ? publicDispatcher.dispatch(request, url, clock.now(), ip, (pattern) => (loggedPath = pattern))
          : undefined;
      // A kept status answer comes without a Promise: no turn of the microtask queue is waited for it.
      if (answered instanceof Promise) answered = await answered;
      if (answered !== undefined) {
        response = answered;
      } else if (!underBase(url.pathname)) {
        throw errors.unknownRoute(null);
      } else {
        const now = clock.now();
        const admitted = await admit(request, ip, now);
        const { key } = admitted;
        keyId = key.id;
        quota = admitted.quota;
        let path = url.pathname.slice(basePath.length);
        if (path.endsWith('/')) path = path.slice(0, -1);
        response = await route(path, {
          request,
          url,
          key,
          now,
          arrivedAt: started,
          store,
          bodyLimit,
          listBatchSize,
          allowPrivateTargets,
          dnsblZones,
          listCache,
          closedDays,
          webhookSender,
          channelSender,
          recentRecords,
          publicUrl,
        });
        // A change made here shows on this process's status pages from its answer on, before the
        // store's word of it comes back (docs/status-pages.md, "Caching and conditional requests").
        if (request.method !== 'GET' && response.status < 400 && !/\/(check|test)$/.test(path))
          statusKeeper.forgetAll();
      }
    } catch (error) {
      const apiError = asApiError(error, id);
      code = apiError.code;
      response = errorResponse(apiError);
    }
    return finish(response);

    /** The answer with its per-request fields, logged. */
    function finish(response: ApiResponse): ApiResponse {
      // The one place the per-request fields join the answer's own (docs/contract.md §3): the key's
      // quota once it is known, and X-Request-Id on every answer.
      Object.assign(response.headers, quota);
      response.headers['x-request-id'] = id;
      if (logger.request !== undefined) {
        const entry: RequestLogEntry = {
          time: toTimestamp(Date.now()),
          request_id: id,
          method: request.method,
          path: loggedPath,
          status: response.status,
          duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
          client_ip: ip,
          key_id: keyId,
        };
        // Set only on errors, after the others: a spread of a conditional object cost two more per request.
        if (code !== undefined) entry.code = code;
        logger.request(entry);
      }
      return response;
    }
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
      statusKeeper.close();
      await pings.drain();
      await usage.flush();
      if (ownLimiter) await limiter.close?.();
    },
  };
}
