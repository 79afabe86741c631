import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The repository's root: the nearest folder above this file that holds a package.json. `npm test`
 * runs the tests compiled into `.test-build/` (docs/development.md, "Tests"), which holds no
 * package.json, so from there too this is the repository, where the fixtures, the docs and the
 * sources the tests read or start are.
 */
function repositoryRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const ROOT = repositoryRoot(import.meta.dirname);
