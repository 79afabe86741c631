/**
 * The package as it ships: built from the sources (by `npm test` just before, or in a scratch
 * copy), packed by `npm pack` in that copy, and read back. No source maps (they would name `.ts`
 * files the tarball lacks), and every file a shipped file points at (an import, a re-export, a
 * dynamic import, a declaration's specifier, a `bin` or `exports` target) is in the tarball.
 *
 * Then the tarball is installed into a new project, as a user would, and used there on Node 24
 * and on Node 22, the oldest supported (tools/node22). The install is offline: the new project's
 * lockfile gives each dependency the version and integrity of this repository's lockfile, whose
 * tarballs `npm ci` left in npm's cache, so nothing is fetched.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { isBuildFresh, ROOT } from '../support/built-cli.ts';
import { consumerLockfile } from './consumer-lockfile.ts';

/** The folders the build compiles (as tsconfig.build.json says), and what else the package takes. */
const BUILT: string[] = (JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[] })
  .include;
const COPIED = [
  ...BUILT,
  'scripts',
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'README.md',
  'SECURITY.md',
  'LICENSE',
  'CHANGELOG.md',
  'openapi.json',
];
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let scratch: string;
let shipped: Set<string>;
let tarball: string;

before(() => {
  scratch = mkdtempSync(join(tmpdir(), 'monitoring-api-pack-'));
  for (const entry of COPIED) cpSync(join(ROOT, entry), join(scratch, entry), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(scratch, 'node_modules'), 'dir');
  // The package's own build, as `prepack` runs it; then the list npm would put in the tarball.
  // Under `npm test` that build has just run, from these very sources (isBuildFresh says so):
  // its dist/ is copied rather than built a second time, a few seconds of CPU.
  if (isBuildFresh()) cpSync(join(ROOT, 'dist'), join(scratch, 'dist'), { recursive: true });
  else execFileSync(NPM, ['run', 'build'], { cwd: scratch, stdio: 'pipe' });
  const listing = execFileSync(NPM, ['pack', '--json', '--ignore-scripts'], {
    cwd: scratch,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [pack] = JSON.parse(listing) as Array<{ filename: string; files: Array<{ path: string }> }>;
  shipped = new Set(pack!.files.map((file) => file.path));
  tarball = join(scratch, pack!.filename);
});
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Relative specifiers of a JavaScript or declaration file: static, re-exported, dynamic, referenced. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\1/g))
    found.push(match[2]!);
  for (const match of text.matchAll(/\/\/\/\s*<reference\s+path=(['"])([^'"]+)\1/g)) found.push(match[2]!);
  return found;
}

describe('the package as shipped', () => {
  it('ships no source maps and no file names one', () => {
    const maps = [...shipped].filter((path) => path.endsWith('.map'));
    assert.deepEqual(maps, []);
    for (const path of shipped) {
      if (!path.endsWith('.js')) continue;
      assert.doesNotMatch(readFileSync(join(scratch, path), 'utf8'), /sourceMappingURL/, path);
    }
  });

  it('every relative import, re-export and declaration specifier resolves to a shipped file', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const path of shipped) {
      if (!path.endsWith('.js') && !path.endsWith('.d.ts')) continue;
      for (const specifier of specifiers(readFileSync(join(scratch, path), 'utf8'))) {
        checked++;
        const target = normalize(join(dirname(path), specifier));
        if (!shipped.has(target)) missing.push(`${path} -> ${specifier}`);
      }
    }
    assert.ok(checked > 100, `only ${checked} specifiers found: the scan is broken`);
    assert.deepEqual(missing, []);
  });

  it('runs no script of its own when a consumer installs it (npm warns about each one)', () => {
    const pkg = JSON.parse(readFileSync(join(scratch, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    // What npm runs when the package is installed as a dependency (prepare: from git or a folder).
    const atInstall = ['preinstall', 'install', 'postinstall', 'prepare'].filter(
      (name) => pkg.scripts?.[name] !== undefined,
    );
    assert.deepEqual(atInstall, []);
  });

  it('the bin and every export target are shipped', () => {
    const pkg = JSON.parse(readFileSync(join(scratch, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
      exports: Record<string, string | Record<string, string>>;
    };
    const targets = [
      ...Object.values(pkg.bin),
      ...Object.values(pkg.exports).flatMap((entry) => (typeof entry === 'string' ? [entry] : Object.values(entry))),
    ];
    for (const target of targets) assert.ok(shipped.has(normalize(target)), `${target} is not in the tarball`);
  });
});

/** Node 22, from the tools/node22 workspace. */
const NODE_22 = join(ROOT, 'tools', 'node22', 'node_modules', 'node', 'bin', 'node');

/** What a user's first lines do: the API over SQLite, a key, GET /v1/me. Prints the answer. */
const FIRST_USE = `
import { createMonitoringApi } from 'monitoring-api';
import { migrateToLatest, openKyselyStore } from 'monitoring-api/kysely';
const { store, db } = await openKyselyStore('sqlite:' + process.argv[1]);
await migrateToLatest(db);
const api = createMonitoringApi({ store });
const user = await api.keys.createUser({ name: 'first' });
const { token } = await api.keys.createApiKey({ userId: user.id, scopes: ['read'] });
const response = await api.fetch(new Request('http://localhost/v1/me', { headers: { authorization: 'Bearer ' + token } }), { clientAddress: '127.0.0.1' });
console.log(JSON.stringify({ status: response.status, body: await response.json() }));
await api.close();
await store.close();
`;

/**
 * A host's own queries through the store's `db`: a `select *` kept across a schema change sees the
 * new column (node:sqlite on Node 22 keeps a statement's first columns, so the store reuses
 * statements only where they follow the schema), and a Date, which node:sqlite would read as named
 * parameters, is refused rather than bound out of place.
 */
const HOST_QUERIES = `
import { sql } from 'kysely';
import { openKyselyStore } from 'monitoring-api/kysely';
const { store, db } = await openKyselyStore('sqlite::memory:');
await sql\`create table t (a integer)\`.execute(db);
await sql\`insert into t values (1)\`.execute(db);
const before = (await sql\`select * from t\`.execute(db)).rows[0];
await sql\`alter table t add column b integer\`.execute(db);
const after = (await sql\`select * from t\`.execute(db)).rows[0];
const refused = await sql\`select \${new Date(0)} as d\`.execute(db).then(() => 'bound', (error) => error.message);
console.log(JSON.stringify({ before: Object.keys(before), after: Object.keys(after), refused }));
await store.close();
`;

/** Node 22 says once per process that node:sqlite is experimental (docs/development.md, "Node"). */
const NODE_22_SQLITE_WARNING =
  /^\(node:\d+\) ExperimentalWarning: SQLite is an experimental feature and might change at any time\n\(Use `node --trace-warnings \.\.\.` to show where the warning was created\)\n$/;

describe('the tarball installed into a new project', () => {
  let project: string;
  let install: { stdout: string; stderr: string };

  before(async () => {
    project = join(scratch, 'consumer');
    mkdirSync(project);
    const lock = consumerLockfile(JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')), tarball);
    writeFileSync(join(project, 'package.json'), `${JSON.stringify(lock.packages[''], null, 2)}\n`);
    writeFileSync(join(project, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
    install = await promisify(execFile)(NPM, ['ci', '--offline', '--no-audit', '--no-fund'], {
      cwd: project,
      encoding: 'utf8',
    });
  });

  it('installs with no script, nothing compiled and no warning', () => {
    assert.equal(install.stderr, '');
    assert.match(install.stdout.trim(), /^added \d+ packages in /);
    const built = readdirSync(join(project, 'node_modules'), { recursive: true, encoding: 'utf8' }).filter(
      (path) => path.endsWith('.node') || path.endsWith('binding.gyp'),
    );
    assert.deepEqual(built, []);
  });

  for (const [runtime, node, warnings] of [
    ['Node 24', process.execPath, /^$/],
    ['Node 22', NODE_22, NODE_22_SQLITE_WARNING],
  ] as const) {
    it(`answers GET /v1/me over SQLite on ${runtime}, as a host imports it`, async () => {
      const { stdout, stderr } = await promisify(execFile)(
        node,
        ['--input-type=module', '-e', FIRST_USE, join(project, `first-${runtime.replace(' ', '')}.db`)],
        { cwd: project, encoding: 'utf8' },
      );
      const answer = JSON.parse(stdout) as { status: number; body: { success: boolean; data: { user_id: number } } };
      assert.equal(answer.status, 200, stdout);
      assert.equal(answer.body.data.user_id, 1);
      assert.match(stderr, warnings);
    });

    it(`runs the command on ${runtime}: migrate, then users create`, async () => {
      const cli = join(project, 'node_modules', 'monitoring-api', 'dist', 'cli', 'main.js');
      const database = `sqlite:${join(project, `cli-${runtime.replace(' ', '')}.db`)}`;
      const run = (args: string[]) =>
        promisify(execFile)(node, [cli, ...args, '--database', database], { cwd: project, encoding: 'utf8' });
      const migrated = await run(['migrate']);
      assert.match(migrated.stderr, warnings);
      const user = JSON.parse((await run(['users', 'create', '--json'])).stdout) as { user_id: number };
      assert.equal(user.user_id, 1);
      // A command that opens no SQLite database loads no SQLite, and so prints no warning on Node 22.
      // The document is past 1 MB, execFile's default buffer: give it room.
      const openapi = await promisify(execFile)(node, [cli, 'openapi'], {
        cwd: project,
        encoding: 'utf8',
        maxBuffer: 16 * 1024 * 1024,
      });
      assert.equal(openapi.stderr, '');
    });

    it(`keeps a host's own SQLite queries right on ${runtime}: statements follow the schema, a Date is refused`, async () => {
      const { stdout } = await promisify(execFile)(node, ['--input-type=module', '-e', HOST_QUERIES], {
        cwd: project,
        encoding: 'utf8',
      });
      const seen = JSON.parse(stdout) as { before: string[]; after: string[]; refused: string };
      assert.deepEqual(seen.before, ['a']);
      assert.deepEqual(seen.after, ['a', 'b']);
      assert.match(seen.refused, /^SQLite cannot bind \[object Date\]/);
    });
  }
});
