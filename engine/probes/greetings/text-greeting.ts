import { bannerOf, MAX_GREETING_BYTES, MORE, type Greeting, type Verdict } from './greeting.ts';

/**
 * A line protocol whose server speaks first (SSH, SMTP, FTP, IMAP, POP3): the first line must
 * start with one of `prefixes`. A wrong start is judged at once, without waiting for the line end.
 */
export function textGreeting(prefixes: readonly string[]): Greeting {
  return {
    hello: null,
    judge(received: Buffer): Verdict {
      const text = received.toString('utf8');
      // Shorter than a prefix: still a possible start of it.
      const started = prefixes.some((prefix) => prefix.startsWith(text.slice(0, prefix.length)));
      if (!started) return { kind: 'bad', banner: bannerOf(text) };
      const complete = text.includes('\n') || received.length >= MAX_GREETING_BYTES;
      if (!complete) return MORE;
      const ok = prefixes.some((prefix) => text.startsWith(prefix));
      return { kind: ok ? 'ok' : 'bad', banner: bannerOf(text) };
    },
  };
}
