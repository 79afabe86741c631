/** Plain-text pieces every kind's messages share: durations, times, and fitting text into a service's limits. */

/** `1 d 4 h`, `2 h 5 min`, `5 min`, `42 s`: the two largest units, rounded down. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return min % 60 === 0 ? `${h} h` : `${h} h ${min % 60} min`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? `${d} d` : `${d} d ${h % 24} h`;
}

/** `2026-01-01 10:04 UTC`: to the minute, in UTC, as people read it whatever their zone. */
export function formatTime(timestamp: string): string {
  const ms = Date.parse(timestamp);
  if (Number.isNaN(ms)) return timestamp;
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** `text` in at most `max` characters, ending in `…` when cut; never cut inside a surrogate pair. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** Control characters (a newline in a name included) as spaces: for one-line places such as headers and subjects. */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ');
}

/** How long a text is where it is going: characters for most services, bytes for some (ntfy). */
export type Measure = (text: string) => number;
export const characters: Measure = (text) => text.length;
export const utf8Bytes: Measure = (text) => Buffer.byteLength(text, 'utf8');

/**
 * Whole lines joined by `\n`, as many as fit in `max`: the first always (its own length is the
 * caller's to bound), the next ones while they fit. Lines are never cut, so markup and escapes in
 * them stay whole.
 */
export function linesWithin(lines: readonly string[], max: number, measure: Measure = characters): string {
  let text = lines[0] ?? '';
  for (const line of lines.slice(1)) {
    const next = `${text}\n${line}`;
    if (measure(next) > max) break;
    text = next;
  }
  return text;
}

/**
 * Whole blocks joined by `separator`, as many as fit in `max` together with the line `more(n)`
 * that counts the `n` left out (the `hidden` ones the caller never rendered included). Answers the
 * text and how many blocks it shows.
 */
export function blocksWithin(
  blocks: readonly string[],
  max: number,
  hidden: number,
  more: (n: number) => string,
  separator = '\n',
  measure: Measure = characters,
): { text: string; shown: number } {
  const withMore = (text: string, left: number) =>
    left === 0 ? text : text === '' ? more(left) : `${text}${separator}${more(left)}`;
  let text = '';
  let shown = 0;
  for (const block of blocks) {
    const next = text === '' ? block : `${text}${separator}${block}`;
    const left = blocks.length - shown - 1 + hidden;
    if (measure(withMore(next, left)) > max && shown > 0) break;
    text = next;
    shown += 1;
  }
  return { text: withMore(text, blocks.length - shown + hidden), shown };
}

/**
 * How much of `max` each of `n` listed blocks may take, leaving room for the separators and the
 * "… and N more" line; never below `floor`, so a block keeps at least its first lines.
 */
export function shareOf(max: number, n: number, separator: string, floor = 160): number {
  const reserve = andMore(999_999).length + separator.length;
  return Math.max(floor, Math.floor((max - reserve) / Math.max(1, n)) - separator.length);
}

/** `… and 180 more`. */
export const andMore = (n: number): string => `… and ${n} more`;
