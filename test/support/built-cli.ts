/**
 * Which `monitoring-api` the tests start. `npm test` builds `dist/` first, and the compiled
 * binary is what the package ships; it also starts in a third of the time the sources take
 * through tsx, which the CLI suites pay a few hundred times. A `dist/` older than any source it
 * is made from (a single test file run after an edit) is not used: the sources run instead.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The folders tsconfig.build.json compiles. */
const SOURCE_FOLDERS = ['core', 'adapters', 'stores', 'cli', 'client'];
const BUILT_CLI = join('dist', 'cli', 'main.js');

function mtime(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Whether `dist/` was built after the last change to any source file it is made from. */
export function isBuildFresh(): boolean {
  const built = mtime(join(ROOT, BUILT_CLI));
  if (built === undefined) return false;
  for (const folder of SOURCE_FOLDERS) {
    for (const file of readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
      if ((mtime(join(ROOT, folder, file)) ?? Infinity) > built) return false;
    }
  }
  return true;
}

/** Node's arguments before the CLI's own, run with `cwd: ROOT`: `[...CLI_ARGS, 'serve', ...]`. */
export const CLI_ARGS: readonly string[] = isBuildFresh() ? [BUILT_CLI] : ['--import', 'tsx', join('cli', 'main.ts')];
