/**
 * One attempt to carry a notification to a channel: its kind renders the request(s), they go out
 * through the guarded connector (HTTP) or the operator's SMTP server (email), and the kind judges
 * the answer. The engine's channel dispatcher and the API's test messages (createChannelSender)
 * both send through it.
 */
import type { ChannelConfigs, ChannelEndpoint, ChannelType, Clock, Notification } from '../../core/internal.ts';
import type { Connector } from '../net/connector.ts';
import { postRequest, type PostOptions } from '../net/http-post.ts';
import type { ChannelKind, DeliveryVerdict, HttpAnswer, HttpKind, RenderContext } from './kind.ts';
import { CHANNEL_KINDS } from './kinds/index.ts';
import { createMailer, judgeMail, type Mailer, type SmtpSettings } from './smtp-mailer.ts';

/** How much of a service's answer is kept: enough for its error (Telegram's `retry_after`). */
const KEPT_ANSWER_BYTES = 8 * 1024;

export interface ChannelDeliveryOptions {
  /** The guarded connector under the target policy: every HTTP request goes through it. */
  connector: Connector;
  /**
   * The connector to the SMTP server. The server is the operator's (`--smtp-url`), chosen as the
   * database and the DNS servers are, not a user's: it is resolved and pinned like any other
   * connection, but a private address is allowed (a relay on localhost or the LAN is the usual
   * set-up), whatever `allowPrivateTargets` says of users' URLs.
   */
  mailConnector: Connector;
  /** One request, or one mail, connecting included. */
  timeoutMs: number;
  tls?: PostOptions['tls'];
  clock: Clock;
  context: Omit<RenderContext, 'mailDomain'>;
  /** Without it, email channels fail with `email_unavailable`, retried, as our failure. */
  smtp: (SmtpSettings & { mailDomain: string }) | null;
}

/** An attempt's outcome. */
export interface ChannelSendResult {
  verdict: DeliveryVerdict;
  /** The last HTTP status answered; null for email and when none answered. */
  httpStatus: number | null;
  /**
   * Whether the message may have reached the service (docs/notifications.md, "Reminders,
   * escalation and acknowledgement"): delivered, or some request of it was answered 2xx or 5xx (a
   * 5xx can come after the service took it in), or written whole with no answer after (no answer
   * in time, a reset). A mail only when delivered.
   */
  reached: boolean;
  /** How long it took, connecting included, in whole milliseconds. */
  durationMs: number;
}

/** A mail's attempt: it reached the server's mailbox only when delivered (the server answered the whole of it). */
const mailResult = (verdict: DeliveryVerdict): Omit<ChannelSendResult, 'durationMs'> => ({
  verdict,
  httpStatus: null,
  reached: verdict.outcome === 'delivered',
});

export interface ChannelDelivery {
  /** Never rejects for the channel's sake. */
  deliver(channel: Pick<ChannelEndpoint, 'type' | 'config'>, notification: Notification): Promise<ChannelSendResult>;
  /** Closes the SMTP transport, if one was opened. */
  close(): void;
}

export function createChannelDelivery(options: ChannelDeliveryOptions): ChannelDelivery {
  const { connector, timeoutMs, clock } = options;
  let mailer: Promise<Mailer> | undefined;
  const context = (mailDomain: string): RenderContext => ({ ...options.context, mailDomain });

  async function sendHttp<T extends ChannelType>(
    kind: HttpKind<T>,
    config: ChannelConfigs[T],
    notification: Notification,
  ): Promise<Omit<ChannelSendResult, 'durationMs'>> {
    let verdict: DeliveryVerdict = { outcome: 'delivered' };
    let httpStatus: number | null = null;
    let reached = false;
    // A kind's several requests (PagerDuty's, one per item) go in order; the first that is not
    // delivered ends the attempt, and a retry sends them all again (PagerDuty drops the repeats by dedup_key).
    for (const message of kind.render(config, notification, context(options.smtp?.mailDomain ?? 'localhost'))) {
      let answer: HttpAnswer;
      let written = false;
      try {
        answer = await postRequest(message.url, message, {
          connector,
          timeoutMs,
          tls: options.tls,
          keepBodyBytes: KEPT_ANSWER_BYTES,
          onWritten: () => (written = true),
        });
        httpStatus = answer.status;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        answer = { status: null, error: typeof code === 'string' ? code : 'request_failed' };
      }
      // A refusal (4xx) says the service did not take it; a 5xx, or no answer to a request written
      // whole, leaves it open.
      if (answer.status === null ? written : answer.status < 300 || answer.status >= 500) reached = true;
      verdict = kind.judge(answer, clock.now());
      if (verdict.outcome !== 'delivered') break;
    }
    return { verdict, httpStatus, reached };
  }

  async function sendMail(config: ChannelConfigs['email'], notification: Notification): Promise<DeliveryVerdict> {
    const smtp = options.smtp;
    if (smtp === null) return { outcome: 'retry', error: 'email_unavailable', retryAfterMs: null, ours: true };
    mailer ??= createMailer({ settings: smtp, connector: options.mailConnector, timeoutMs, tls: options.tls });
    const mail = CHANNEL_KINDS.email.render(config, notification, context(smtp.mailDomain));
    let ready: Mailer;
    try {
      ready = await mailer;
    } catch {
      // nodemailer could not be loaded (an install without it): ours, and retried once it is there.
      mailer = undefined;
      return { outcome: 'retry', error: 'email_unavailable', retryAfterMs: null, ours: true };
    }
    return judgeMail(await ready.send(mail));
  }

  return {
    async deliver(channel, notification) {
      const started = performance.now();
      const kind = CHANNEL_KINDS[channel.type] as ChannelKind<ChannelType>;
      const done =
        kind.transport === 'smtp'
          ? mailResult(await sendMail(channel.config as ChannelConfigs['email'], notification))
          : await sendHttp(kind as HttpKind<ChannelType>, channel.config, notification);
      return { ...done, durationMs: Math.round(performance.now() - started) };
    },
    close() {
      void mailer?.then((m) => m.close());
    },
  };
}
