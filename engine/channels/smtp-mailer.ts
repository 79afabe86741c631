/**
 * Mail through the operator's SMTP server (`--smtp-url`), by nodemailer, which is imported only
 * when a mail is first sent: a server without `--smtp-url` never loads it (as the command loads
 * prom-client only for `--metrics-address`). The connection is the guarded connector's, so the
 * server's name is resolved once, by the engine's resolver, and the socket goes to the address
 * judged; nodemailer speaks SMTP over it, with STARTTLS when the server offers it (`smtp://`) or
 * TLS from the start (`smtps://`), certificates verified.
 */
import type { ConnectionOptions } from 'node:tls';
import type { Connector } from '../net/connector.ts';
import type { DeliveryVerdict, MailMessage } from './kind.ts';

/** The server, as `--smtp-url` and `--smtp-from` give it. */
export interface SmtpSettings {
  /** `smtp://user:pass@host:port` (STARTTLS when offered) or `smtps://...` (TLS from the start). */
  url: string;
  /** The mails' `From`: an address the server sends for. */
  from: string;
}

interface SmtpServer {
  host: string;
  port: number;
  secure: boolean;
  auth: { user: string; pass: string } | undefined;
}

/**
 * `--smtp-url` read: the scheme says TLS, the port defaults to 587 (`smtp:`) or 465 (`smtps:`).
 * Throws a RangeError.
 */
export function smtpServer(url: string): SmtpServer {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // The URL is not repeated: it may hold a password.
    throw new RangeError('the SMTP URL must be smtp://[user:pass@]host[:port] or smtps://...');
  }
  if ((parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') || parsed.hostname === '') {
    throw new RangeError(
      `the SMTP URL must be smtp://[user:pass@]host[:port] or smtps://..., not ${parsed.protocol}//...`,
    );
  }
  const secure = parsed.protocol === 'smtps:';
  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  const auth =
    parsed.username === ''
      ? undefined
      : { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) };
  return { host, port: parsed.port === '' ? (secure ? 465 : 587) : Number(parsed.port), secure, auth };
}

const ADDRESS =
  /^[^\s@<>]+@([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)$/;

/** The domain of `--smtp-from`, the host part of the mails' Message-IDs. Throws a RangeError. */
export function mailDomain(from: string): string {
  const match = ADDRESS.exec(from);
  if (match === null) throw new RangeError(`the mail sender must be an address (local@domain), not "${from}"`);
  return match[1]!.toLowerCase();
}

/**
 * How a mail went: `error` null when the server took it; else `smtp_<reply>` or the failure's code,
 * with the reply code when the server gave one and the command it answered (`RCPT TO`, `DATA`, ...).
 */
export type MailAnswer = { error: null } | { error: string; responseCode: number | null; command: string | null };

export interface Mailer {
  send(mail: MailMessage): Promise<MailAnswer>;
  close(): void;
}

export interface MailerOptions {
  settings: SmtpSettings;
  /** A guarded connector (see channel-delivery.ts for the policy it applies to the SMTP server). */
  connector: Connector;
  /** Connecting, the greeting, and silence on the connection each fail past it. */
  timeoutMs: number;
  tls?: Pick<ConnectionOptions, 'ca' | 'secureContext'>;
}

/** The mailer, nodemailer imported now: call it when a mail is to be sent, not before. */
export async function createMailer(options: MailerOptions): Promise<Mailer> {
  const { createTransport } = await import('nodemailer');
  const server = smtpServer(options.settings.url);
  const { connector, timeoutMs } = options;
  const transport = createTransport({
    host: server.host,
    port: server.port,
    secure: server.secure,
    ...(server.auth === undefined ? {} : { auth: server.auth }),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    ...(options.tls === undefined ? {} : { tls: options.tls }),
    disableFileAccess: true,
    disableUrlAccess: true,
    // The socket is the connector's: resolved once, judged, then handed to nodemailer as it is.
    getSocket: (_options, callback) => {
      connector.connect({ host: server.host, port: server.port, timeoutMs }).then(
        ({ socket }) => callback(null, { connection: socket }),
        (error: unknown) => callback(error as Error),
      );
    },
  });
  return {
    async send(mail) {
      try {
        await transport.sendMail({
          from: options.settings.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          messageId: mail.messageId,
          ...(mail.inReplyTo === null ? {} : { inReplyTo: mail.inReplyTo }),
          ...(mail.references.length === 0 ? {} : { references: mail.references }),
          date: mail.date,
        });
        return { error: null };
      } catch (error) {
        const { code, responseCode, command } = error as { code?: unknown; responseCode?: unknown; command?: unknown };
        const reply = typeof responseCode === 'number' ? responseCode : null;
        return {
          error: reply !== null ? `smtp_${reply}` : typeof code === 'string' ? code : 'smtp_failed',
          responseCode: reply,
          command: typeof command === 'string' ? command : null,
        };
      }
    },
    close: () => transport.close(),
  };
}

/**
 * The commands whose 5xx reply refuses this mail itself: its recipients, or its content. One to
 * `MAIL FROM` refuses `--smtp-from`, which is the operator's to mend.
 */
const MAIL_REFUSED = new Set(['RCPT TO', 'DATA']);

/**
 * A mail's answer judged. A server that refused this mail for good (a 5xx reply to its recipients
 * or its content: no such mailbox, a message refused) makes it a permanent failure; everything else
 * is retried, and counted as our failure: the server is the operator's, and its being down,
 * refusing our login or deferring (4xx) says nothing of the channel. Email channels are never
 * disabled by an answer.
 */
export function judgeMail(answer: MailAnswer): DeliveryVerdict {
  if (answer.error === null) return { outcome: 'delivered' };
  const refused = answer.responseCode !== null && answer.responseCode >= 500 && MAIL_REFUSED.has(answer.command ?? '');
  if (refused) return { outcome: 'failed', error: answer.error };
  return { outcome: 'retry', error: answer.error, retryAfterMs: null, ours: true };
}
