import { toTimestamp } from '../clock.ts';
import type { ApiResponse } from '../http/api-response.ts';
import type { PingKind, ReceivedPing } from '../records/index.ts';
import type { RateLimitDecision, RateLimitPolicy } from '../store/rate-limiter.ts';
import { PING_BODY_KEPT, PING_BODY_LIMIT, PingBodyTooLarge, PingBodyUnreadable, readPingBody } from './ping-body.ts';
import type { PingWriter } from './ping-writer.ts';
import { textResponse, type PublicCall, type PublicEndpoint, type PublicRoute } from './public-route.ts';

/** A ping token: a version 4 UUID in lower case, as the API makes them. */
const TOKEN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** A run id: any UUID, in either case (Healthchecks takes any). */
const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** An exit status as Healthchecks reads one: one to three digits (0 to 255 are valid). */
const EXIT_STATUS = /^[0-9]{1,3}$/;

/** Pings recorded per token: 5 a second (docs/heartbeats.md, "Pings"). */
export const PING_RATE: RateLimitPolicy = { limit: 5, windowSeconds: 1 };
/** The longest User-Agent kept with a ping. */
const USER_AGENT_CHARS = 500;

/** What every ping answer carries: how much of a body is kept (Healthchecks' header, read by runitor). */
const BODY_LIMIT_HEADER = { 'ping-body-limit': String(PING_BODY_KEPT) };

const answer = (status: number, text: string, headers: Record<string, string> = {}): ApiResponse =>
  textResponse(status, text, { ...BODY_LIMIT_HEADER, 'cache-control': 'no-store', ...headers });

export interface PingRouteOptions {
  writer: PingWriter;
  /** A rate limiter's decision for a bucket (the API's own limiter, bucket `ping:<token>`). */
  consume(bucket: string, policy: RateLimitPolicy): RateLimitDecision | Promise<RateLimitDecision>;
}

/** What the last path segment says: the ping's kind and exit status, or the answer refusing it. */
function signalOf(signal: string | undefined): { kind: PingKind; exit_status: number | null } | ApiResponse {
  if (signal === undefined) return { kind: 'success', exit_status: null };
  if (signal === 'start' || signal === 'fail' || signal === 'log') return { kind: signal, exit_status: null };
  if (EXIT_STATUS.test(signal)) {
    const status = Number(signal);
    return status <= 255 ? { kind: 'exit', exit_status: status } : answer(400, 'invalid url format');
  }
  return answer(404, 'not found');
}

/** The value of `rid` in a query, or null; undefined when it is given but is not one UUID. */
function runIdOf(query: string): string | null | undefined {
  if (query === '') return null;
  const values = new URLSearchParams(query).getAll('rid');
  if (values.length === 0) return null;
  if (values.length > 1 || !RUN_ID.test(values[0]!)) return undefined;
  return values[0]!.toLowerCase();
}

/**
 * The ping routes (docs/heartbeats.md, "Pings"), compatible with Healthchecks' ping API:
 * `/ping/<token>[/start|/fail|/log|/<0-255>]` on GET, HEAD and POST, with `?rid=`. What can be
 * judged without the store is judged first (the token's and signal's form, the run id, the body's
 * size, the rate), so that nothing but the final 404 depends on whether the token exists; then the
 * ping waits for its batch to be committed (ping-writer.ts) and is answered `200 OK`.
 */
export function pingRoutes(options: PingRouteOptions): PublicRoute[] {
  const handler = async (call: PublicCall): Promise<ApiResponse> => {
    const { token, signal } = call.params;
    if (token === undefined || !TOKEN.test(token)) return answer(404, 'not found');
    const said = signalOf(signal);
    if ('status' in said) return said;
    const rid = runIdOf(call.url.query);
    if (rid === undefined) return answer(400, 'invalid uuid format');
    const declared = call.request.headers.get('content-length');
    if (declared !== null && Number(declared) > PING_BODY_LIMIT) return tooLarge();
    const decision = await options.consume(`ping:${token}`, PING_RATE);
    if (!decision.allowed) return answer(429, 'rate limited', { 'retry-after': String(decision.resetSeconds) });
    let body: string | null;
    try {
      body = await readPingBody(call.request);
    } catch (error) {
      if (error instanceof PingBodyTooLarge) return tooLarge();
      if (error instanceof PingBodyUnreadable) return answer(400, 'body unreadable');
      throw error;
    }
    const userAgent = call.request.headers.get('user-agent');
    const ping: ReceivedPing = {
      ping_token: token,
      kind: said.kind,
      exit_status: said.exit_status,
      received_at: toTimestamp(call.now),
      remote_addr: call.clientIp,
      // A field's value from HTTP is bytes, a character each; an adapter's own headers may hold
      // more, and a pair cut in two is made U+FFFD rather than stored half (PostgreSQL's JSON refuses it).
      user_agent: userAgent === null ? null : userAgent.slice(0, USER_AGENT_CHARS).toWellFormed(),
      body,
      rid,
    };
    const outcome = await options.writer.submit(ping);
    // A HEAD answer has no body: what a server would drop, the core does not give.
    if (outcome === 'recorded') return answer(200, call.request.method === 'HEAD' ? '' : 'OK');
    if (outcome === 'not_found') return answer(404, 'not found');
    // Not recorded: the client is to send it again (curl --retry does so on a 503).
    return answer(503, 'try again later', { 'retry-after': '1' });
  };
  const tooLarge = () => answer(413, 'payload too large', { connection: 'close' });
  const path = '/ping/:token/:signal?';
  const value: PublicEndpoint = { handler, byHost: false, text: true };
  return (['GET', 'HEAD', 'POST'] as const).map((method) => ({ method, path, value }));
}
