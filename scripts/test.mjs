// `npm test`: lint, build the package and the compiled tests, and run the suites (docs/development.md,
// "Tests"). Lint runs beside the rest rather than before it: it needs no build, and the suites
// leave part of the two cores idle while files wait on processes, timers and the database, which
// lint's ten seconds fill. The run fails if either fails; both finish first, so one failure does
// not hide the other.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs a command with this process's output; resolves with its exit code. */
function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', shell: process.platform === 'win32' });
    child.once('error', () => resolve(1));
    child.once('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
  });
}

async function buildAndTest() {
  for (const script of ['build', 'build:tests']) {
    const code = await run(npm, ['run', '--silent', script]);
    if (code !== 0) return code;
  }
  // test/<area>/<name>.test.ts, compiled; Node 20's runner takes files, not patterns.
  const files = readdirSync('.test-build/test', { withFileTypes: true })
    .filter((area) => area.isDirectory())
    .flatMap((area) => readdirSync(join('.test-build/test', area.name)).filter((name) => name.endsWith('.test.js')).map((name) => join('.test-build/test', area.name, name)));
  return run(process.execPath, ['--test', '--test-concurrency=3', ...process.argv.slice(2), ...files]);
}

const [lint, tests] = await Promise.all([run(npm, ['run', '--silent', 'lint']), buildAndTest()]);
if (lint !== 0) console.error(`npm test: lint failed (exit ${lint})`);
process.exitCode = lint !== 0 ? lint : tests;
