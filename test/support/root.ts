import { dirname } from 'node:path';

/**
 * The repository's root, where the fixtures, the docs and the sources the tests read or start
 * are: two folders above this file (test/support/).
 */
export const ROOT = dirname(dirname(import.meta.dirname));
