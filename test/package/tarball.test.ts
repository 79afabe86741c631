/**
 * The package as it ships: built from the sources (by `npm test` just before, or in a scratch
 * copy), listed by `npm pack --dry-run` in that copy, and read back. No source maps (they would name `.ts` files the tarball lacks), and
 * every file a shipped file points at (an import, a re-export, a dynamic import, a declaration's
 * specifier, a `bin` or `exports` target) is in the tarball.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isBuildFresh, ROOT } from '../support/built-cli.ts';

/** The folders the build compiles (as tsconfig.build.json says), and what else the package takes. */
const BUILT: string[] = (JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[] }).include;
const COPIED = [...BUILT, 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json',
  'README.md', 'SECURITY.md', 'LICENSE', 'openapi.json'];
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let scratch: string;
let shipped: Set<string>;

before(() => {
  scratch = mkdtempSync(join(tmpdir(), 'monitoring-api-pack-'));
  for (const entry of COPIED) cpSync(join(ROOT, entry), join(scratch, entry), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(scratch, 'node_modules'), 'dir');
  // The package's own build, as `prepack` runs it; then the list npm would put in the tarball.
  // Under `npm test` that build has just run, from these very sources (isBuildFresh says so):
  // its dist/ is copied rather than built a second time, a few seconds of CPU.
  if (isBuildFresh()) cpSync(join(ROOT, 'dist'), join(scratch, 'dist'), { recursive: true });
  else execFileSync(NPM, ['run', 'build'], { cwd: scratch, stdio: 'pipe' });
  const listing = execFileSync(NPM, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: scratch, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const [pack] = JSON.parse(listing) as Array<{ files: Array<{ path: string }> }>;
  shipped = new Set(pack!.files.map((file) => file.path));
});
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Relative specifiers of a JavaScript or declaration file: static, re-exported, dynamic, referenced. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\1/g)) found.push(match[2]!);
  for (const match of text.matchAll(/\/\/\/\s*<reference\s+path=(['"])([^'"]+)\1/g)) found.push(match[2]!);
  return found;
}

describe('the package as shipped', () => {
  it('ships no source maps and no file names one', () => {
    const maps = [...shipped].filter((path) => path.endsWith('.map'));
    assert.deepEqual(maps, []);
    for (const path of shipped) {
      if (!path.endsWith('.js')) continue;
      assert.doesNotMatch(readFileSync(join(scratch, path), 'utf8'), /sourceMappingURL/, path);
    }
  });

  it('every relative import, re-export and declaration specifier resolves to a shipped file', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const path of shipped) {
      if (!path.endsWith('.js') && !path.endsWith('.d.ts')) continue;
      for (const specifier of specifiers(readFileSync(join(scratch, path), 'utf8'))) {
        checked++;
        const target = normalize(join(dirname(path), specifier));
        if (!shipped.has(target)) missing.push(`${path} -> ${specifier}`);
      }
    }
    assert.ok(checked > 100, `only ${checked} specifiers found: the scan is broken`);
    assert.deepEqual(missing, []);
  });

  it('runs no script of its own when a consumer installs it (npm warns about each one)', () => {
    const pkg = JSON.parse(readFileSync(join(scratch, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    // What npm runs when the package is installed as a dependency (prepare: from git or a folder).
    const atInstall = ['preinstall', 'install', 'postinstall', 'prepare'].filter((name) => pkg.scripts?.[name] !== undefined);
    assert.deepEqual(atInstall, []);
  });

  it('the bin and every export target are shipped', () => {
    const pkg = JSON.parse(readFileSync(join(scratch, 'package.json'), 'utf8')) as {
      bin: Record<string, string>; exports: Record<string, string | Record<string, string>>;
    };
    const targets = [...Object.values(pkg.bin), ...Object.values(pkg.exports).flatMap((entry) => typeof entry === 'string' ? [entry] : Object.values(entry))];
    for (const target of targets) assert.ok(shipped.has(normalize(target)), `${target} is not in the tarball`);
  });
});
