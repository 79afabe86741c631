import { MORE, type Greeting, type Verdict } from './greeting.ts';

/**
 * PostgreSQL waits for the client. An SSLRequest (length 8, code 80877103) is the one message any
 * server answers without credentials: one byte, `S` (TLS available) or `N` (not). Nothing is
 * sent after it, so no login is attempted and no password is needed.
 */
const SSL_REQUEST = Uint8Array.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

export function postgresqlGreeting(): Greeting {
  return {
    hello: SSL_REQUEST,
    judge(received: Buffer): Verdict {
      if (received.length === 0) return MORE;
      const answer = String.fromCharCode(received[0] ?? 0);
      return { kind: answer === 'S' || answer === 'N' ? 'ok' : 'bad', banner: null };
    },
  };
}
