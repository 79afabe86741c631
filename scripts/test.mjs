// `npm test`: lint, type-check, build the package and the compiled tests, and run the suites
// (docs/development.md, "Tests"). Lint and the type check run beside the rest rather than before
// it: neither needs a build, and the suites leave part of the two cores idle while files wait on
// processes, timers and the database, which their fifteen seconds fill. So both builds emit
// without checking (tsc's `--noCheck`, the same output), and the suites start about two seconds
// in rather than nine. tsc runs single-threaded throughout: every core is busy with the rest, and
// its threads cost the type check and the builds about 4 s of CPU more for no shorter run. The
// run fails if any part fails; all finish first, so one failure does not hide another.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

/** Runs a command with this process's output; resolves with its exit code. */
function run(command, args, env = process.env, shell = process.platform === 'win32') {
  return new Promise((done) => {
    const child = spawn(command, args, { stdio: 'inherit', shell, env });
    child.once('error', () => done(1));
    child.once('exit', (code, signal) => done(code ?? (signal === null ? 1 : 128)));
  });
}

const SCRIPTS = JSON.parse(readFileSync('package.json', 'utf8')).scripts;

/**
 * Runs one of package.json's scripts as `npm run NAME -- ARGS` would (its words in a shell, with
 * node_modules/.bin first on PATH), without npm itself: each npm process cost about 0.7 s of CPU
 * to start, three times a run.
 */
function runScript(name, args = [], env = process.env) {
  const words = [SCRIPTS[name], ...args].join(' ');
  // Windows spells it Path, and a copied environment no longer matches names case-insensitively.
  const pathKey = Object.keys(env).find((key) => key.toUpperCase() === 'PATH') ?? 'PATH';
  const path = `${resolve('node_modules', '.bin')}${delimiter}${env[pathKey] ?? ''}`;
  return run(words, [], { ...env, [pathKey]: path }, true);
}

async function buildAndTest() {
  const built = await Promise.all([
    run(process.execPath, ['scripts/build.mjs', '--no-check', '--single-threaded']),
    runScript('build:tests', ['--noCheck', '--singleThreaded']),
  ]);
  const failed = built.find((code) => code !== 0);
  if (failed !== undefined) return failed;
  // One migrated PostgreSQL database for the suites to copy (test/support/postgres-template.ts).
  const { createMigratedTemplate } = await import('../.test-build/test/support/postgres-template.js');
  const { TEMPLATE_VARIABLE } = await import('../.test-build/test/support/postgres.js');
  const template = await createMigratedTemplate();
  if (template !== undefined) process.env[TEMPLATE_VARIABLE] = template.name;
  try {
    return await run(process.execPath, ['--test', `--test-concurrency=${CONCURRENCY}`, ...process.argv.slice(2), ...testEntries()]);
  } finally {
    await template?.drop();
  }
}

const TEST_BUILD = '.test-build';
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY ?? 4);

/**
 * Files that get a process of their own: they spend their time waiting on the processes they
 * start (servers, workers, other runtimes, tsc), so sharing a process would line their waits up
 * one after another and save next to nothing. A file missing here shares its area's process:
 * still run, only in sequence with its neighbours.
 */
const OWN_PROCESS = new Set([
  'adapters/bun', 'adapters/deno', 'adapters/express', 'adapters/node', 'adapters/runtime-sqlite', 'adapters/shared-database',
  'bench/bench-smoke', 'cli/postgres', 'cli/serve', 'cli/worker', 'docs/snippets', 'engine-multi/workers',
  'hardening/postgres-faults', 'hardening/server', 'hardening/shutdown-deadlines', 'package/tarball',
]);

/**
 * Areas whose shared files also share one process with each other: each is a few seconds of CPU
 * with little waiting, and a process of its own cost each about half a second more (Node, the
 * runner, and the core, kysely and the test helpers loaded once more). Measured on 2026-11-25:
 * nine of these areas took 19.7 s of CPU as nine processes, 13.5 s as one (`cli` joined later).
 */
const QUICK_AREAS = new Set(['adapters', 'cli', 'client', 'docs', 'engine', 'lint', 'openapi', 'probes', 'unit', 'webhooks']);
const QUICK = 'quick';

/**
 * The longest entries, longest first, as measured on 2026-11-25 with four at a time on two
 * cores: from 35 s (the api area) down to about 11 s. The runner starts them first, so the run
 * does not end on one long file left alone on an idle machine (it did: the stores area started
 * 80 s into a 95 s run). An entry not listed only starts later; a stale list costs time, never a test.
 */
const LONGEST_FIRST = [
  'api', QUICK, 'bench/bench-smoke', 'hardening/server', 'stores', 'e2e', 'adapters/express', 'hardening/shutdown-deadlines',
  'hardening', 'cli/postgres', 'docs/snippets', 'engine-multi/workers', 'rate-limits', 'cli/worker',
];

/**
 * What the runner starts, one process each: the files of an area that are not in OWN_PROCESS run
 * in one process between them. Node 20's runner starts a process per file; for a file of unit
 * tests that start (Node, the runner, the modules the file imports) costs more CPU than its
 * tests, and over the suite it came to about a fifth of the suite's CPU time. Each entry is a module in
 * .test-build/entries/ that imports its test files; its name begins with its place in the order,
 * because the runner starts the files it is given in the order of their names.
 */
function testEntries() {
  const root = join(TEST_BUILD, 'test');
  const areas = readdirSync(root, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  const entries = [];
  const quick = { name: QUICK, files: [] };
  for (const area of areas) {
    const names = readdirSync(join(root, area)).filter((name) => name.endsWith('.test.js')).sort().map((name) => `${area}/${name.slice(0, -'.test.js'.length)}`);
    const shared = names.filter((name) => !OWN_PROCESS.has(name));
    if (QUICK_AREAS.has(area)) quick.files.push(...shared);
    else if (shared.length > 0) entries.push({ name: area, files: shared });
    for (const name of names.filter((name) => OWN_PROCESS.has(name))) entries.push({ name, files: [name] });
  }
  if (quick.files.length > 0) entries.push(quick);
  const rank = (entry) => {
    const place = LONGEST_FIRST.indexOf(entry.name);
    return place === -1 ? LONGEST_FIRST.length : place;
  };
  const ordered = entries.map((entry, index) => ({ entry, index })).sort((a, b) => rank(a.entry) - rank(b.entry) || a.index - b.index);
  const folder = join(TEST_BUILD, 'entries');
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder);
  return ordered.map(({ entry }, place) => {
    const path = join(folder, `${String(place).padStart(3, '0')}-${entry.name.replace('/', '-')}.js`);
    writeFileSync(path, entry.files.map((file) => `import '../test/${file}.test.js';\n`).join(''));
    return path;
  });
}

// ESLint allocates many short-lived objects (every file's syntax tree, twice): with a larger young
// generation its collector ran less, and a lint without its cache took about 15 s of CPU instead of 17.
const lintEnv = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-semi-space-size=32`.trim() };
const [lint, typecheck, tests] = await Promise.all([runScript('lint', [], lintEnv), runScript('typecheck', ['--singleThreaded']), buildAndTest()]);
if (lint !== 0) console.error(`npm test: lint failed (exit ${lint})`);
if (typecheck !== 0) console.error(`npm test: type check failed (exit ${typecheck})`);
process.exitCode = [lint, typecheck, tests].find((code) => code !== 0) ?? 0;
