import { join, relative } from 'node:path';
import { ROOT } from './root.ts';

/** Where `npm run build:tests` compiles the repository (docs/development.md, "Tests"). */
const TEST_BUILD = join(ROOT, '.test-build');
/** Whether this test runs from that compiled copy, as under `npm test`. */
const COMPILED = !relative(TEST_BUILD, import.meta.dirname).startsWith('..');

/**
 * Node's arguments to start one of the repository's TypeScript files (`path` from the root) as a
 * process of its own: its compiled copy when the tests run compiled, which spares the child
 * tsx's loader (about half a second of CPU), else the source through tsx.
 */
export function nodeArgs(path: string): string[] {
  return COMPILED ? [join(TEST_BUILD, path.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', join(ROOT, path)];
}
