/**
 * A real SMTP server on 127.0.0.1 (the smtp-server package), each mail parsed by mailparser: what
 * an email channel's messages are checked against. It takes `mailer:s3cret` as login, and refuses
 * the recipients of `unknown` with 550.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  mail: ParsedMail;
}

export interface SmtpFake {
  port: number;
  received: ReceivedMail[];
  /** Recipients the server refuses with 550. */
  unknown: Set<string>;
  logins: string[];
  close(): Promise<void>;
}

export async function startSmtp(): Promise<SmtpFake> {
  const received: ReceivedMail[] = [];
  const unknown = new Set<string>();
  const logins: string[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push(`${auth.username}:${auth.password}`);
      if (auth.username === 'mailer' && auth.password === 's3cret') callback(null, { user: auth.username });
      else callback(new Error('535 authentication failed'));
    },
    onRcptTo(address, _session, callback) {
      if (unknown.has(address.address)) {
        const error = new Error('no such mailbox') as Error & { responseCode: number };
        error.responseCode = 550;
        callback(error);
      } else callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
          received.push({ from, to: session.envelope.rcptTo.map((r) => r.address), mail });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    received,
    unknown,
    logins,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
