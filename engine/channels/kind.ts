/**
 * The seam of a channel kind (docs/notifications.md, "What each type sends"): what each type of channel
 * does with a notification, as data. A kind renders the request(s) that carry a notification to
 * its service and judges the service's answer; it never touches the network itself, so each kind
 * is one small file of pure functions, tested by rendering, and every request it makes goes out
 * through the same guarded connector (engine/channels/channel-delivery.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ChannelConfigs, ChannelType, Notification } from '../../core/internal.ts';

/** What a kind may use besides the channel's config: the operator's settings. */
export interface RenderContext {
  /** `--public-url`, without a trailing slash: messages link to the record under it; null for no links. */
  publicUrl: string | null;
  /** `--telegram-api-url`, without a trailing slash (default https://api.telegram.org). */
  telegramApiUrl: string;
  /** `--pagerduty-events-url` (default https://events.pagerduty.com/v2/enqueue). */
  pagerdutyEventsUrl: string;
  /** The domain of `--smtp-from`: the host part of the mails' Message-IDs. */
  mailDomain: string;
}

/** One HTTP request a kind sends: always a POST (every service here takes one). */
export interface HttpMessage {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** One mail, multipart text and HTML, threaded by its ids (RFC 5322 §3.6.4). */
export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** With its angle brackets: `<device.incident.12@example.com>`. */
  messageId: string;
  /** The mail this one answers (the incident's down mail); null for none. */
  inReplyTo: string | null;
  /** The thread: the down mails of the incidents it speaks of. */
  references: string[];
  date: Date;
}

/** A service's answer to one request, or why there was none. */
export type HttpAnswer =
  | { status: number; headers: IncomingHttpHeaders; body: string }
  /** No answer: the system's code (`ECONNREFUSED`, `timeout`, `forbidden_address`, `resolver_unavailable`, ...). */
  | { status: null; error: string };

/**
 * What an attempt came to (docs/notifications.md, "Answers"):
 * - `delivered`;
 * - `retry`: try again later, after `retryAfterMs` when the service said (Retry-After); `ours` when
 *   the failure is on our side (our resolver, the operator's SMTP server), which never counts
 *   against the channel;
 * - `failed`: this message will never be taken (the service refused its content); the next one may;
 * - `disable`: the service says the channel is gone (a deleted webhook, a revoked token): nothing
 *   further is sent to it until someone mends and enables it. `reason` is `http_404` and the like.
 */
export type DeliveryVerdict =
  | { outcome: 'delivered' }
  | { outcome: 'retry'; error: string; retryAfterMs: number | null; ours: boolean }
  | { outcome: 'failed'; error: string }
  | { outcome: 'disable'; error: string; reason: string };

interface KindBase<T extends ChannelType> {
  type: T;
  /**
   * Whether items that fall due together go out as one message (chat, email); false when each
   * goes alone (PagerDuty: one event per incident, its own grouping does the rest).
   */
  groups: boolean;
  /** The least time between two messages to one channel (docs/notifications.md, "Grouping"). */
  spacingMs: number;
}

/** A kind whose messages are HTTP requests (every type but email). */
export interface HttpKind<T extends ChannelType> extends KindBase<T> {
  transport: 'http';
  /** The requests that carry `notification`, in the order they are sent; at least one. */
  render(config: ChannelConfigs[T], notification: Notification, context: RenderContext): HttpMessage[];
  /** What the service's answer means; `nowMs` reads a Retry-After given as a date. */
  judge(answer: HttpAnswer, nowMs: number): DeliveryVerdict;
}

/** The email kind: one mail, sent through the operator's SMTP server. */
export interface MailKind extends KindBase<'email'> {
  transport: 'smtp';
  render(config: ChannelConfigs['email'], notification: Notification, context: RenderContext): MailMessage;
}

export type ChannelKind<T extends ChannelType> = T extends 'email' ? MailKind : HttpKind<T>;

/** The registry's shape: one kind per channel type, each for its own config. */
export type ChannelKinds = { readonly [T in ChannelType]: ChannelKind<T> };
