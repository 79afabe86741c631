/**
 * The top-level members of a JSON object text whose value is a number written with a fraction or
 * an exponent (`443.0`, `1e2`). JSON.parse makes `443.0` the integer 443, yet the contract asks
 * for JSON integers, so the text itself is read. The text must already be known to be valid JSON
 * (JSON.parse accepted it). With repeated keys the last occurrence counts, as in JSON.parse.
 */
export function nonIntegerMembers(text: string): string[] {
  const latest = new Map<string, boolean>();
  let depth = 0;
  let key: string | undefined;
  let awaitingValue = false;
  const valueSeen = (nonInteger: boolean) => {
    if (depth === 1 && awaitingValue && key !== undefined) latest.set(key, nonInteger);
    if (depth === 1) awaitingValue = false;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (depth === 1 && !awaitingValue) key = JSON.parse(text.slice(i, end + 1)) as string;
      else valueSeen(false);
      i = end;
    } else if (c === ':') {
      if (depth === 1) awaitingValue = true;
    } else if (c === '{' || c === '[') {
      valueSeen(false);
      depth++;
    } else if (c === '}' || c === ']') {
      depth--;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      let end = i;
      while (end < text.length && /[0-9eE.+-]/.test(text[end]!)) end++;
      valueSeen(/[.eE]/.test(text.slice(i, end)));
      i = end - 1;
    } else if (c === 't' || c === 'f' || c === 'n') {
      valueSeen(false);
      while (i + 1 < text.length && /[a-z]/.test(text[i + 1]!)) i++;
    }
  }
  return [...latest].filter(([, nonInteger]) => nonInteger).map(([name]) => name);
}

/** Stands in for a number that is not an integer literal: every schema refuses it as the wrong type. */
export const NON_INTEGER_LITERAL: Readonly<Record<string, never>> = Object.freeze({});
