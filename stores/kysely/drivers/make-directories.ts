import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * `mkdir -p`, one level at a time. Node's `mkdirSync(path, { recursive: true })` never returns
 * where a parent exists but cannot hold a child (a path under /proc, a symlink to nowhere): it
 * steps back on ENOENT and forward on EEXIST, forever. Here each missing level is made once, and
 * the first level that cannot be made throws.
 */
export function makeDirectories(path: string): void {
  const missing: string[] = [];
  for (let current = resolve(path); !existsSync(current);) {
    missing.push(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const directory of missing.reverse()) {
    try {
      mkdirSync(directory);
    } catch (error) {
      // Made meanwhile by another process, or a symlink whose target is missing: the next level
      // (or the file itself) reports what is really wrong.
      if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
    }
  }
}
