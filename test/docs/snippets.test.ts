/**
 * Every TypeScript snippet in the README and docs/ is either checked here or says why not. A fenced
 * ```ts block must follow a marker line:
 *
 *   <!-- snippet: run -->           type-checked, then run with Node to its end (exit code 0)
 *   <!-- snippet: serve -->         type-checked, then started with Node: it must print
 *                                   `listening on <base URL>` and answer GET <base URL>/me with 401
 *   <!-- snippet: serve bun -->     the same in Bun (or `serve deno`, in Deno)
 *   <!-- snippet: typecheck -->     type-checked only (it would need the network, say)
 *   <!-- snippet: sketch -->        not compiled: a shape, not a program
 *
 * The snippets are written into a temporary folder whose node_modules links `monitoring-api` to
 * this package, so `monitoring-api/kysely` and the rest resolve through package.json's exports to
 * dist/, as they do for a user: the test needs `npm run build` first (`npm test` builds before it
 * tests). One tsc run checks and compiles them all. Servers get PORT=0 and a SQLite file of their
 * own; nothing leaves the loopback interface.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT } from '../support/built-cli.ts';

type Mode = 'run' | 'serve' | 'typecheck' | 'sketch';
type Runtime = 'node' | 'bun' | 'deno';

interface Snippet {
  /** Where it is written: `docs/embedding.md:42` (the line of its opening fence). */
  where: string;
  /** Its file in the temporary folder, without extension. */
  name: string;
  mode: Mode;
  runtime: Runtime;
  code: string;
}

/** The documents a reader is sent to. */
function documents(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`);
  return ['README.md', 'examples/README.md', ...docs.sort()];
}

const MARKER = /^<!-- snippet: (run|serve|typecheck|sketch)(?: (bun|deno))? -->$/;
const FENCE = /^```(\w*)/;
const CODE_LANGUAGES = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs']);

/** The fenced code blocks of one document; a TypeScript or JavaScript block without its marker is a failure. */
function extract(document: string, text: string, unmarked: string[]): Snippet[] {
  const lines = text.split('\n');
  const snippets: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = FENCE.exec(lines[i]!);
    if (fence === null) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith('```'));
    if (end === -1) throw new Error(`${document}:${i + 1}: a code block is never closed`);
    const language = fence[1]!;
    const marker = MARKER.exec(lines[i - 1] ?? '');
    if (CODE_LANGUAGES.has(language)) {
      if (marker === null) unmarked.push(`${document}:${i + 1}`);
      else {
        snippets.push({
          where: `${document}:${i + 1}`,
          name: `${document.replace(/\.md$/, '').replaceAll(/[^A-Za-z0-9]/g, '_')}_L${i + 1}`,
          mode: marker[1] as Mode,
          runtime: (marker[2] ?? 'node') as Runtime,
          code: lines.slice(i + 1, end).join('\n'),
        });
      }
    } else if (marker !== null) {
      throw new Error(`${document}:${i + 1}: a snippet marker before a \`\`\`${language} block; snippets are \`\`\`ts`);
    }
    i = end;
  }
  return snippets;
}

/**
 * What the Bun and Deno snippets use of their runtime's globals, since neither runtime's types are
 * among this repository's dependencies. The package's own adapter types are the real ones, so the
 * check still holds the snippets to the package's API; the runtimes then run them for real.
 */
const RUNTIME_GLOBALS = `
interface BunServer { readonly hostname: string; readonly port: number; requestIP(request: Request): { address: string } | null; stop(): Promise<void> }
declare const Bun: {
  serve(options: { hostname?: string; port?: number; fetch(request: Request, server: BunServer): Response | Promise<Response> }): BunServer;
};
interface DenoAddr { transport: string; hostname: string; port: number }
declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(
    options: { hostname?: string; port?: number; onListen?: (address: DenoAddr) => void },
    handler: (request: Request, info: { remoteAddr: DenoAddr }) => Response | Promise<Response>,
  ): { finished: Promise<void>; shutdown(): Promise<void> };
};
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'es2022',
    lib: ['es2024', 'dom', 'dom.iterable'],
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    types: ['node'],
    outDir: 'out',
    rootDir: '.',
    // A type error fails the type-check test; the other snippets still run, so each failure is reported once.
    noEmitOnError: false,
  },
  include: ['*.ts'],
};

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

const children = new Set<ChildProcess>();
// A test that fails half-way must not leave a server behind.
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Starts a process; `exited` resolves with everything it wrote, after at most `timeoutMs` (then SIGKILL). */
function start(command: string, args: string[], cwd: string, env: Record<string, string>, timeoutMs: number) {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  const listeners = new Set<() => void>();
  const collect = (chunk: string) => {
    output += chunk;
    for (const listener of listeners) listener();
  };
  child.stdout!.setEncoding('utf8').on('data', collect);
  child.stderr!.setEncoding('utf8').on('data', collect);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const exited = new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, signal, output });
    });
  });
  /** Resolves with the first match of `pattern` in the output, or rejects when the process ends first. */
  const waitFor = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(output);
        if (match !== null) {
          listeners.delete(check);
          resolve(match);
        }
      };
      listeners.add(check);
      check();
      void exited.then((exit) =>
        reject(
          new Error(`ended (code ${exit.code}, signal ${exit.signal}) before printing ${pattern}:\n${exit.output}`),
        ),
      );
    });
  return { child, exited, waitFor, output: () => output };
}

const BIN = join(ROOT, 'node_modules', '.bin');

// Read when the file loads, so that each snippet can be a test of its own.
const unmarked: string[] = [];
const snippets = documents().flatMap((document) =>
  extract(document, readFileSync(join(ROOT, document), 'utf8'), unmarked),
);

describe('the snippets of the README and docs/', () => {
  let folder = '';

  before(async () => {
    assert.ok(
      existsSync(join(ROOT, 'dist', 'core', 'index.d.ts')),
      'dist/ is missing: run `npm run build` first (the snippets import the built package)',
    );
    folder = await mkdtemp(join(tmpdir(), 'monitoring-api-snippets-'));
    // The package as a user installs it, beside the same dependencies the repository has
    // (express, @types/node), each linked rather than copied.
    await mkdir(join(folder, 'node_modules'));
    for (const entry of await readdir(join(ROOT, 'node_modules'))) {
      await symlink(join(ROOT, 'node_modules', entry), join(folder, 'node_modules', entry));
    }
    await symlink(ROOT, join(folder, 'node_modules', 'monitoring-api'));
    await writeFile(
      join(folder, 'package.json'),
      `${JSON.stringify({ type: 'module', private: true, dependencies: { 'monitoring-api': '*' } })}\n`,
    );
    await writeFile(join(folder, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
    await writeFile(join(folder, 'runtime-globals.d.ts'), RUNTIME_GLOBALS);
    for (const snippet of snippets) {
      if (snippet.mode !== 'sketch') await writeFile(join(folder, `${snippet.name}.ts`), `${snippet.code}\n`);
    }
  });

  after(async () => {
    if (folder !== '') await rm(folder, { recursive: true, force: true });
  });

  test('every TypeScript or JavaScript block carries a snippet marker', () => {
    assert.deepEqual(
      unmarked,
      [],
      'add <!-- snippet: run|serve|typecheck|sketch --> on the line before each of these blocks',
    );
    assert.ok(
      snippets.some((s) => s.mode === 'run') && snippets.some((s) => s.mode === 'serve'),
      'no snippet found to run',
    );
  });

  test('they type-check against the built package (one tsc run)', async () => {
    // Single-threaded: the suites keep both cores busy, and tsc's threads only add CPU then.
    const tsc = start(join(BIN, 'tsc'), ['-p', 'tsconfig.json', '--singleThreaded'], folder, {}, 60_000);
    const { code, output } = await tsc.exited;
    // tsc names the files it complains about; each file's name says which document and line it is.
    assert.equal(code, 0, `tsc failed (file Xs_Y_LN.ts is the block opening at line N of X/Y.md):\n${output}`);
  });

  for (const snippet of snippets.filter((s) => s.mode === 'run')) {
    test(`${snippet.where} runs to its end`, async () => {
      const cwd = await mkdtemp(join(folder, `run-${snippet.name}-`));
      const run = start(process.execPath, [join(folder, 'out', `${snippet.name}.js`)], cwd, {}, 30_000);
      const { code, output } = await run.exited;
      assert.equal(code, 0, output);
    });
  }
  for (const snippet of snippets.filter((s) => s.mode === 'serve')) {
    test(`${snippet.where} serves the API (${snippet.runtime})`, async () => {
      const cwd = await mkdtemp(join(folder, `serve-${snippet.name}-`));
      const [command, args] =
        snippet.runtime === 'bun'
          ? [join(BIN, 'bun'), [join(folder, `${snippet.name}.ts`)]]
          : snippet.runtime === 'deno'
            ? [
                join(BIN, 'deno'),
                [
                  'run',
                  '--allow-net',
                  '--allow-env',
                  '--allow-read',
                  '--allow-write',
                  join(folder, `${snippet.name}.ts`),
                ],
              ]
            : [process.execPath, [join(folder, 'out', `${snippet.name}.js`)]];
      const server = start(
        command,
        args,
        cwd,
        { PORT: '0', DATABASE_URL: `sqlite:${join(cwd, 'monitoring.db')}` },
        30_000,
      );
      try {
        const base = (await server.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+\S*)/))[1]!;
        const response = await fetch(`${base}/me`);
        const body = (await response.json()) as { error?: { code?: string } };
        assert.equal(response.status, 401, server.output());
        assert.equal(body.error?.code, 'missing_api_key');
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    });
  }
});
