import { join } from 'node:path';
import { ROOT } from './root.ts';

/**
 * Node's arguments to start one of the repository's TypeScript files (`path` from the root) as a
 * process of its own. Node strips the types itself (docs/development.md, "Tests"), so the source
 * is the program: no loader, no compiled copy.
 */
export function nodeArgs(path: string): string[] {
  return [join(ROOT, path)];
}
