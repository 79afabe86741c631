/**
 * A protocol's greeting, as the `service` probe checks it: what to send once connected (for the
 * protocols where the client speaks first) and a judge of the bytes received so far.
 */
export interface Greeting {
  /** Bytes to send right after connecting; none when the server speaks first. */
  readonly hello: Uint8Array | null;
  /** Reads everything received so far and says whether it is enough to decide. */
  judge(received: Buffer): Verdict;
}

export type Verdict =
  /** Not enough bytes yet to decide. */
  | { kind: 'more' }
  /** The greeting is the protocol's: the service answers. */
  | { kind: 'ok'; banner: string | null }
  /** Something answered, but not this protocol (or it refused us outright). */
  | { kind: 'bad'; banner: string | null };

export const MORE: Verdict = { kind: 'more' };

/** More than this without a verdict is not the greeting expected. */
export const MAX_GREETING_BYTES = 8192;

const MAX_BANNER_LENGTH = 200;

/**
 * The first line of `text`, made fit to show: control characters (ANSI escapes included) become
 * `?`, at most 200 characters. Null for an empty line.
 */
export function bannerOf(text: string): string | null {
  const end = text.search(/\r?\n/);
  const line = end === -1 ? text : text.slice(0, end);
  // eslint-disable-next-line no-control-regex -- the control characters are what it replaces
  const printable = Array.from(line.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').trimEnd())
    .slice(0, MAX_BANNER_LENGTH)
    .join('');
  return printable === '' ? null : printable;
}
