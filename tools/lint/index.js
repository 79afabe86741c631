/**
 * The lint toolchain the root eslint.config.js builds on.
 *
 * typescript-eslint parses with TypeScript's JS API, which typescript@7 (the native compiler the
 * project builds with) no longer has: it needs typescript < 6.1. This workspace holds it with
 * TypeScript 6.0, used for parsing only, while the root `typescript` (and `tsc`) stays 7.
 *
 * One dependency escapes the workspace: ts-api-utils accepts any `typescript >= 4.8.4`, so npm
 * hoists it to the root, where `require('typescript')` finds 7's API-less package. Before
 * typescript-eslint loads, its `require('typescript')` is answered with this workspace's 6.0
 * through require.cache (Node's documented module cache), and with nothing else in this process.
 */
import Module, { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const typescript6 = require.resolve('typescript');
const estree = createRequire(
  createRequire(require.resolve('typescript-eslint')).resolve('@typescript-eslint/typescript-estree'),
);
const seenByUtils = createRequire(estree.resolve('ts-api-utils')).resolve('typescript');
if (seenByUtils !== typescript6) {
  const substitute = new Module(seenByUtils);
  substitute.filename = seenByUtils;
  substitute.exports = require(typescript6);
  substitute.loaded = true;
  require.cache[seenByUtils] = substitute;
}

export const { default: tseslint } = await import('typescript-eslint');
export { layout, layoutSettings } from './layout.js';
