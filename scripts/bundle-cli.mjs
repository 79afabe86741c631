// The `monitoring-api` command as one file (docs/development.md, "The build"): `scripts/build.mjs`
// calls this once tsc has compiled the package into dist/.
//
// Why: Node loads an ES module per file, and the command as tsc emits it pulls in about 420 of
// them (kysely alone is 262) before `serve` listens. That cost about 0.65 s of CPU per start; one
// bundled file costs about 0.25 s. Every `serve` and `worker` process an operator starts, and every
// `keys` or `migrate` run, pays it.
//
// What stays outside the file: pg (loaded only for a PostgreSQL URL, and so that the command uses
// the pg the package installed beside it). The store imports it lazily, so a run pays for it only
// when it opens a PostgreSQL database; SQLite is Node's own node:sqlite. nodemailer too: it is
// imported only when a first mail is sent (`--smtp-url`), so no other start parses it. The
// library entry points (`monitoring-api`, `/node`, `/kysely`, ...) are not bundled: a host
// application imports them as modules, with its own copies of their dependencies.
//
// The input is tsc's output, not the TypeScript sources, so that the JavaScript is exactly what
// tsc emitted for every other entry point; esbuild only joins the files.
import { build } from 'esbuild';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Packages the command imports at run time rather than carrying in its file. */
const CLI_EXTERNAL_PACKAGES = ['pg', 'nodemailer'];

/** Replaces `dist/cli/` (tsc's output) with the single file `dist/cli/main.js`. */
export async function bundleCli(dist) {
  const result = await build({
    entryPoints: [join(dist, 'cli', 'main.js')],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node22', // package.json's engines
    external: CLI_EXTERNAL_PACKAGES,
    // Bundled CommonJS packages (ioredis and its helpers) call require() for Node's own modules,
    // and one ioredis path reads __dirname: both exist in CommonJS only, so the file defines them.
    banner: {
      js: [
        "import { createRequire as __monitoringApiCreateRequire } from 'node:module';",
        "import { dirname as __monitoringApiDirname } from 'node:path';",
        "import { fileURLToPath as __monitoringApiFileURLToPath } from 'node:url';",
        'const require = __monitoringApiCreateRequire(import.meta.url);',
        'const __filename = __monitoringApiFileURLToPath(import.meta.url);',
        'const __dirname = __monitoringApiDirname(__filename);',
      ].join('\n'),
    },
    legalComments: 'inline',
    logLevel: 'warning',
  });
  const [bundle] = result.outputFiles;
  rmSync(join(dist, 'cli'), { recursive: true, force: true });
  mkdirSync(join(dist, 'cli'));
  writeFileSync(join(dist, 'cli', 'main.js'), bundle.contents);
}
