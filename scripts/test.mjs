// `npm test`: lint, the type check, and the package's build followed by every suite
// (docs/development.md, "Tests"). The three run side by side, since none needs another's output;
// the build emits without checking, as the type check covers it. The run fails if any part fails;
// all finish first, so one failure does not hide another.
//
//   npm test [-- runner flags...]        e.g. npm test -- --test-name-pattern=webhook
import { spawn } from 'node:child_process';
import { globSync, readFileSync } from 'node:fs';
import { delimiter, resolve } from 'node:path';

/** Runs a command with this process's output; resolves with its exit code. */
function run(command, args, env = process.env, shell = false) {
  return new Promise((done) => {
    const child = spawn(command, args, { stdio: 'inherit', shell, env });
    child.once('error', () => done(1));
    child.once('exit', (code, signal) => done(code ?? (signal === null ? 1 : 128)));
  });
}

const SCRIPTS = JSON.parse(readFileSync('package.json', 'utf8')).scripts;

/**
 * Runs one of package.json's scripts as `npm run NAME` would: its words in a shell, node_modules/.bin first on PATH.
 */
function runScript(name, env = process.env) {
  const pathKey = Object.keys(env).find((key) => key.toUpperCase() === 'PATH') ?? 'PATH';
  const path = `${resolve('node_modules', '.bin')}${delimiter}${env[pathKey] ?? ''}`;
  return run(SCRIPTS[name], [], { ...env, [pathKey]: path }, true);
}

/**
 * How many test files run at once. They wait on servers, processes, timers and the database as
 * much as they compute, so more files than cores keep both cores of a small machine busy.
 */
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY ?? 4);

async function buildAndTest() {
  // The package first: the CLI, snippet and package tests start or import dist/. It takes about a second.
  const built = await run(process.execPath, ['scripts/build.mjs', '--no-check']);
  if (built !== 0) return built;
  // One migrated PostgreSQL database for the suites to copy (test/support/postgres-template.ts).
  const { createMigratedTemplate } = await import('../test/support/postgres-template.ts');
  const { TEMPLATE_VARIABLE } = await import('../test/support/postgres.ts');
  const template = await createMigratedTemplate();
  const env = template === undefined ? process.env : { ...process.env, [TEMPLATE_VARIABLE]: template.name };
  try {
    const files = globSync('test/**/*.test.ts').sort();
    return await run(
      process.execPath,
      ['--test', `--test-concurrency=${CONCURRENCY}`, ...process.argv.slice(2), ...files],
      env,
    );
  } finally {
    await template?.drop();
  }
}

// ESLint allocates many short-lived objects (every file's syntax tree, twice): with a larger young
// generation its collector runs less often.
const lintEnv = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-semi-space-size=32`.trim() };
const [lint, typecheck, tests] = await Promise.all([
  runScript('lint', lintEnv),
  runScript('typecheck'),
  buildAndTest(),
]);
if (lint !== 0) console.error(`npm test: lint failed (exit ${lint})`);
if (typecheck !== 0) console.error(`npm test: type check failed (exit ${typecheck})`);
process.exitCode = [lint, typecheck, tests].find((code) => code !== 0) ?? 0;
