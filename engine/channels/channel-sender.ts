import {
  systemClock,
  toTimestamp,
  type ChannelEndpoint,
  type ChannelSender,
  type Notification,
  type WebhookTestResult,
} from '../../core/internal.ts';
import { createGuardedConnector } from '../net/guarded-connector.ts';
import { systemLookup } from '../net/system-lookup.ts';
import { contextTrusting } from '../net/trusted-context.ts';
import type { WebhookSenderOptions } from '../webhooks/webhook-sender.ts';
import { createChannelDelivery, type ChannelDelivery } from './channel-delivery.ts';
import { mailDomain, smtpServer } from './smtp-mailer.ts';

/** Where Telegram's Bot API and PagerDuty's Events API v2 are, unless told otherwise. */
export const TELEGRAM_API_URL = 'https://api.telegram.org';
export const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com/v2/enqueue';

/**
 * The operator's settings for channels (docs/notifications.md, "What each type sends"), beside the
 * outbound options the webhook sender takes: the target policy, DNS servers, lookup, trusted CAs,
 * the attempt's timeout (default 10 000 ms) and the clock.
 */
export interface ChannelSenderOptions extends WebhookSenderOptions {
  /** `smtp://user:pass@host:port` or `smtps://...`: the server mail goes through. Without it, no email channel. */
  smtpUrl?: string;
  /** The mails' `From`; required with `smtpUrl`. */
  smtpFrom?: string;
  /** The server's public base URL (`https://monitoring.example.com/v1`): messages link to records under it. */
  publicUrl?: string;
  /** Telegram's Bot API; default https://api.telegram.org. */
  telegramApiUrl?: string;
  /** PagerDuty's Events API v2 endpoint; default https://events.pagerduty.com/v2/enqueue (an EU account: events.eu.pagerduty.com). */
  pagerdutyEventsUrl?: string;
}

/** An http(s) URL without its trailing slashes; a RangeError naming `what` otherwise. */
function webUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new RangeError(`${what} must be an http or https URL, not "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RangeError(`${what} must be an http or https URL, not "${value}"`);
  }
  return value.replace(/\/+$/, '');
}

/** The channel delivery the options describe, each setting checked (a RangeError names the bad one). */
export function channelDeliveryFrom(options: ChannelSenderOptions): ChannelDelivery {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const lookup = options.lookup ?? systemLookup(options.dnsServers ?? [], timeoutMs);
  if ((options.smtpUrl === undefined) !== (options.smtpFrom === undefined)) {
    throw new RangeError('the SMTP URL and the mail sender go together: give both or neither');
  }
  let smtp = null;
  if (options.smtpUrl !== undefined) {
    smtpServer(options.smtpUrl);
    smtp = { url: options.smtpUrl, from: options.smtpFrom!, mailDomain: mailDomain(options.smtpFrom!) };
  }
  return createChannelDelivery({
    connector: createGuardedConnector({
      lookup,
      allowPrivateTargets: options.allowPrivateTargets === true,
      lookupTimeoutMs: timeoutMs,
    }),
    mailConnector: createGuardedConnector({ lookup, allowPrivateTargets: true, lookupTimeoutMs: timeoutMs }),
    timeoutMs,
    ...(options.trustedCa !== undefined && options.trustedCa.length > 0
      ? { tls: { secureContext: contextTrusting(options.trustedCa) } }
      : {}),
    clock: options.clock ?? systemClock,
    context: {
      publicUrl: options.publicUrl === undefined ? null : webUrl(options.publicUrl, 'the public URL'),
      telegramApiUrl: webUrl(options.telegramApiUrl ?? TELEGRAM_API_URL, 'the Telegram API URL'),
      pagerdutyEventsUrl: webUrl(options.pagerdutyEventsUrl ?? PAGERDUTY_EVENTS_URL, 'the PagerDuty events URL'),
    },
    smtp,
  });
}

/**
 * The sender of `POST /channels/test` (MonitoringApiOptions.channelSender): one test message, at
 * once, through the same kinds, connector and policy as the engine's deliveries. Throws a
 * RangeError for a setting that cannot be used (an SMTP URL that is not smtp: or smtps:, a sender
 * that is not an address, a URL that is not http or https).
 */
export function createChannelSender(options: ChannelSenderOptions = {}): ChannelSender {
  const clock = options.clock ?? systemClock;
  const delivery = channelDeliveryFrom(options);
  return {
    email: options.smtpUrl !== undefined,
    async test(channel: ChannelEndpoint): Promise<WebhookTestResult> {
      const notification: Notification = {
        at: toTimestamp(clock.now()),
        items: [{ reason: 'test', channel: { id: channel.id, name: channel.name } }],
        total: 1,
      };
      const { verdict, httpStatus, durationMs } = await delivery.deliver(channel, notification);
      return {
        delivered: verdict.outcome === 'delivered',
        http_status: httpStatus,
        error: verdict.outcome === 'delivered' ? null : verdict.error,
        duration_ms: durationMs,
        attempted_at: toTimestamp(clock.now()),
      };
    },
  };
}
