/**
 * How a service's answer is judged (docs/notifications.md, "Answers"), the same for every HTTP
 * kind but for the statuses that disable a channel, which each kind names.
 */
import { RESOLVER_UNAVAILABLE } from '../our-failures.ts';
import type { DeliveryVerdict, HttpAnswer } from './kind.ts';

/** A chat webhook URL that answers these was deleted (Slack, Discord, Teams). */
export const DELETED_WEBHOOK = [404, 410] as const;
/** An API that answers these refuses our credentials (Telegram's bot token, PagerDuty's key, ntfy's token). */
export const REFUSED_CREDENTIALS = [401, 403] as const;

/** A Retry-After longer than this is read as this: past a day the message has no use left. */
const MAX_RETRY_AFTER_MS = 86_400_000;

/**
 * A Retry-After value in milliseconds from `nowMs` (RFC 9110 §10.2.3): delay-seconds, which some
 * services (Discord) give with a fraction, or an HTTP-date; null when absent or unreadable.
 */
export function retryAfterMs(value: string | string[] | undefined, nowMs: number): number | null {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === '') return null;
  let ms: number;
  if (/^[0-9]+(?:\.[0-9]+)?$/.test(text)) ms = Math.ceil(Number(text) * 1000);
  else {
    const date = Date.parse(text);
    if (Number.isNaN(date)) return null;
    ms = Math.max(0, date - nowMs);
  }
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

/** Failures of an attempt that are on our side rather than the service's (engine/our-failures.ts). */
const OURS: ReadonlySet<string> = new Set([RESOLVER_UNAVAILABLE]);

/**
 * An HTTP answer judged: 2xx delivered; 408, 429 and 5xx retried (after Retry-After when given);
 * the statuses in `disableOn` disable the channel; any other status is a permanent failure of
 * this message. No answer at all (a refused connection, a timeout, a name that does not resolve)
 * is retried: the service may be down for a while, and it says nothing of the channel being gone.
 */
export function judgeHttpAnswer(
  answer: HttpAnswer,
  nowMs: number,
  disableOn: readonly number[],
  retryAfter: number | null = null,
): DeliveryVerdict {
  if (answer.status === null) {
    return { outcome: 'retry', error: answer.error, retryAfterMs: null, ours: OURS.has(answer.error) };
  }
  const { status } = answer;
  if (status >= 200 && status < 300) return { outcome: 'delivered' };
  const error = `http_${status}`;
  if (status === 408 || status === 429 || status >= 500) {
    return {
      outcome: 'retry',
      error,
      retryAfterMs: retryAfterMs(answer.headers['retry-after'], nowMs) ?? retryAfter,
      ours: false,
    };
  }
  if (disableOn.includes(status)) return { outcome: 'disable', error, reason: error };
  return { outcome: 'failed', error };
}
