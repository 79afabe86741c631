// Rewrites the relative `.ts` specifiers tsc leaves in declaration files (`from './x.ts'`) to the
// `.js` the package ships beside each `.d.ts`. tsc rewrites them in the JavaScript it emits
// (rewriteRelativeImportExtensions) but not in declarations, which then name files the tarball
// does not carry; TypeScript before 5.0, and other tools that read `.d.ts`, cannot follow them.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SPECIFIER = /((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]+?)\.ts\2/g;
const root = process.argv[2] ?? 'dist';
let changed = 0;
for (const file of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
  if (!file.endsWith('.d.ts')) continue;
  const path = join(root, file);
  const text = readFileSync(path, 'utf8');
  const rewritten = text.replace(SPECIFIER, (_match, lead, quote, stem) => `${lead}${quote}${stem}.js${quote}`);
  if (rewritten !== text) {
    writeFileSync(path, rewritten);
    changed++;
  }
}
process.stdout.write(`declaration specifiers: ${changed} file(s) rewritten to .js\n`);
