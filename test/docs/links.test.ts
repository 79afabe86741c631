/**
 * What the documentation points at exists: every "docs/contract.md §N" a source comment cites is a
 * section of docs/contract.md, every `docs/engine.md, "Scheduling"`-style one names a heading of that file,
 * and every relative link of the README and docs/ names a file of the repository (and, with a
 * #fragment into a Markdown file, one of its headings).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../support/built-cli.ts';

const SOURCE_FOLDERS = ['core', 'adapters', 'stores', 'engine', 'cli', 'client', 'test', 'examples', 'bench'];

function files(folder: string, extension: string): string[] {
  if (!existsSync(join(ROOT, folder))) return [];
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith(extension) && !file.includes('node_modules'))
    .map((file) => join(folder, file));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replaceAll(/[^\p{L}\p{N} _-]/gu, '')
    .replaceAll(' ', '-');
}

function headings(markdown: string): string[] {
  return markdown
    .split('\n')
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) => line.replace(/^#+ /, ''));
}

test('every docs/contract.md §N cited in the sources is a section of docs/contract.md', () => {
  const sections = new Set(
    headings(readFileSync(join(ROOT, 'docs', 'contract.md'), 'utf8'))
      .map((heading) => /^(\d+(?:\.\d+)?)\.? /.exec(heading)?.[1])
      .filter((number) => number !== undefined),
  );
  const missing: string[] = [];
  for (const file of SOURCE_FOLDERS.flatMap((folder) => files(folder, '.ts'))) {
    for (const citation of readFileSync(join(ROOT, file), 'utf8').matchAll(
      /docs\/contract\.md((?:[ ,]*(?:and|to)? *§\d+(?:\.\d+)?(?:-§?\d+(?:\.\d+)?)?)+)/g,
    )) {
      for (const number of citation[1]!.matchAll(/§?(\d+(?:\.\d+)?)/g)) {
        if (!sections.has(number[1]!)) missing.push(`${file}: §${number[1]}`);
      }
    }
  }
  assert.deepEqual(missing, []);
});

test('every heading of docs/ cited in the sources (docs/engine.md, "Scheduling") is a heading of that file', () => {
  const known = new Map<string, Set<string>>();
  const headingsOf = (name: string): Set<string> | undefined => {
    if (!known.has(name)) {
      const path = join(ROOT, 'docs', `${name}.md`);
      if (!existsSync(path)) return undefined;
      known.set(name, new Set(headings(readFileSync(path, 'utf8'))));
    }
    return known.get(name);
  };
  const missing: string[] = [];
  for (const file of SOURCE_FOLDERS.flatMap((folder) => files(folder, '.ts'))) {
    // A citation may wrap onto the next comment line: ` * ` is joined back into one space.
    const text = readFileSync(join(ROOT, file), 'utf8').replaceAll(/\s*\n\s*(?:\*|\/\/)\s*/g, ' ');
    for (const citation of text.matchAll(/docs\/([a-z-]+)\.md,\s*((?:"[^"]+"(?:,?\s*(?:and\s+)?)?)+)/g)) {
      const inFile = headingsOf(citation[1]!);
      for (const heading of citation[2]!.matchAll(/"([^"]+)"/g)) {
        if (inFile === undefined || !inFile.has(heading[1]!))
          missing.push(`${file}: docs/${citation[1]}.md, "${heading[1]}"`);
      }
    }
  }
  assert.deepEqual(missing, []);
});

test('every relative link of the README and docs/ leads somewhere', () => {
  const documents = ['README.md', 'SECURITY.md', 'examples/README.md', ...files('docs', '.md')];
  const broken: string[] = [];
  for (const document of documents) {
    const text = readFileSync(join(ROOT, document), 'utf8');
    for (const link of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = link[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      const [path, fragment] = target.split('#') as [string, string | undefined];
      const file = path === '' ? document : relative(ROOT, join(ROOT, dirname(document), path));
      if (!existsSync(join(ROOT, file))) {
        broken.push(`${document}: ${target}`);
        continue;
      }
      if (
        fragment !== undefined &&
        file.endsWith('.md') &&
        !headings(readFileSync(join(ROOT, file), 'utf8'))
          .map(anchor)
          .includes(fragment)
      ) {
        broken.push(`${document}: ${target} (no such heading)`);
      }
    }
  }
  assert.deepEqual(broken, []);
});
