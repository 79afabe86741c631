// `npm run build`: compiles the package into dist/, and bundles the command into dist/cli/main.js
// (scripts/bundle-cli.mjs). docs/development.md, "Tests", says how `npm test` uses it.
//
//   node scripts/build.mjs [--no-check] [--single-threaded]
//
// dist/.build-started and dist/.build-done bracket the compile, so test/support/built-cli.ts can
// tell a finished build from one under way or interrupted. `--no-check` emits without type
// checking: `npm test` passes it because it type-checks the whole repository beside the suites
// (scripts/test.mjs), and tsc's emit does not depend on the check.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { bundleCli } from './bundle-cli.mjs';

// The package's bin file; its `exports` do not list it, so it is found beside package.json.
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
const check = !process.argv.includes('--no-check');
// tsc's --singleThreaded: the same output for less CPU (its threads cost more than they save when
// the cores are busy anyway, as under `npm test`).
const threads = process.argv.includes('--single-threaded') ? ['--singleThreaded'] : [];

rmSync('dist', { recursive: true, force: true });
mkdirSync('dist');
writeFileSync('dist/.build-started', '');
const compiled = spawnSync(
  process.execPath,
  [tsc, '-p', 'tsconfig.build.json', ...(check ? [] : ['--noCheck']), ...threads],
  { stdio: 'inherit' },
);
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
const rewritten = spawnSync(process.execPath, ['scripts/declaration-specifiers.mjs', 'dist'], { stdio: 'inherit' });
if (rewritten.status !== 0) process.exit(rewritten.status ?? 1);
await bundleCli('dist');
writeFileSync('dist/.build-done', '');
