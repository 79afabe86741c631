/**
 * The names a module exports, types included, read from its source: what a user of the entry can
 * import. `export *` and `export type *` are followed into the file they name. Runtime values alone would miss the
 * types, which are most of a TypeScript entry's promise.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const DECLARATION =
  /^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/gm;
const LIST = /^export\s+(?:type\s+)?\{([^}]*)\}/gm;
const STAR = /^export\s+(?:type\s+)?\*\s+from\s+'([^']+)'/gm;
/** `export * as name from`: one name. */
const STAR_AS = /^export\s+(?:type\s+)?\*\s+as\s+([A-Za-z_$][\w$]*)\s+from/gm;

export function exportedNames(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const names = new Set<string>();
  for (const match of text.matchAll(DECLARATION)) names.add(match[1]!);
  for (const match of text.matchAll(LIST)) {
    for (const item of match[1]!.split(',')) {
      const name = item
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()!
        .trim();
      if (name !== '') names.add(name);
    }
  }
  for (const match of text.matchAll(STAR_AS)) names.add(match[1]!);
  for (const match of text.matchAll(STAR)) {
    for (const name of exportedNames(resolve(dirname(file), match[1]!))) names.add(name);
  }
  return [...names].sort();
}
