/**
 * Which `monitoring-api` the tests start. `npm test` builds `dist/` first, and its bundled
 * command (`dist/cli/main.js`) is what the package ships; it also loads one file where the
 * sources are some four hundred modules, a start the CLI suites pay a few hundred times. A
 * `dist/` not built from the sources as they are now (a single test file run by hand after an
 * edit) is not used: `cli/main.ts` runs instead, its types stripped by Node.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { ROOT } from './root.ts';

export { ROOT };

/** What tsconfig.build.json compiles, and the configuration it compiles with. */
const SOURCE_FOLDERS = ['core', 'engine', 'adapters', 'stores', 'cli', 'client'];
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json'];
/** `npm run build` writes this before tsc reads a source: a file saved during the build is newer. */
const BUILD_STARTED = join('dist', '.build-started');
/** ...and this once tsc has succeeded: a build that failed or was stopped leaves none. */
const BUILD_DONE = join('dist', '.build-done');
const BUILT_CLI = join('dist', 'cli', 'main.js');

function mtime(path: string): number | undefined {
  try {
    return statSync(join(ROOT, path)).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Whether `dist/` was built, to a successful end, from the sources as they are now. */
export function isBuildFresh(): boolean {
  const started = mtime(BUILD_STARTED);
  const done = mtime(BUILD_DONE);
  if (started === undefined || done === undefined || done < started || mtime(BUILT_CLI) === undefined) return false;
  // Equal times count as stale: on a coarse clock a save in the same tick cannot be told apart.
  const stale = (path: string) => (mtime(path) ?? Infinity) >= started;
  if (CONFIGS.some(stale)) return false;
  for (const folder of SOURCE_FOLDERS) {
    for (const file of readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })) {
      if (file.endsWith('.ts') && !file.endsWith('.test.ts') && stale(join(folder, file))) return false;
    }
  }
  return true;
}

/** Node's arguments before the CLI's own, run with `cwd: ROOT`: `[...CLI_ARGS, 'serve', ...]`. */
export const CLI_ARGS: readonly string[] = isBuildFresh() ? [BUILT_CLI] : [join('cli', 'main.ts')];
