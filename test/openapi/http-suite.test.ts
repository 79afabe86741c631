/**
 * Every answer the HTTP test suite (test/api) sees, checked against the OpenAPI document. The
 * suite runs in a child process with a recorder preloaded (test/openapi/recorder), which appends
 * each answer of each API the suite creates to a file; then every line is checked: status
 * documented for its operation, body matching the schema (objects closed), headers as documented.
 * So whatever a future HTTP test provokes, the document has to describe it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { createOpenApiDocument } from '../../core/openapi/index.ts';
import { createConformance, type Conformance } from './conformance.ts';
import type { RecordedExchange } from './recorder/recording-api.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** This process's environment, minus the marker that would make the child runner act as our subtest. */
function childEnv(recordFile: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, OPENAPI_RECORD_FILE: recordFile };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

async function runRecordedSuite(recordFile: string): Promise<{ code: number | null; output: string }> {
  const files = (await readdir(join(ROOT, 'test/api'))).filter((name) => name.endsWith('.test.ts')).map((name) => join('test/api', name));
  const child = spawn(process.execPath, [
    '--import', 'tsx', '--import', './test/openapi/recorder/register.ts',
    '--test', '--test-reporter=dot', '--test-concurrency=2', ...files,
  ], { cwd: ROOT, env: childEnv(recordFile), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, output };
}

test('every answer of the HTTP test suite conforms to the OpenAPI document', { timeout: 10 * 60_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'monitoring-api-openapi-'));
  try {
    const recordFile = join(dir, 'exchanges.jsonl');
    const { code, output } = await runRecordedSuite(recordFile);
    assert.equal(code, 0, `the HTTP suite failed under the recorder:\n${output.slice(-4000)}`);

    const lines = (await readFile(recordFile, 'utf8')).split('\n').filter((line) => line !== '');
    const conformances = new Map<string, Conformance>();
    const problems: string[] = [];
    const operations = new Set<string>();
    for (const line of lines) {
      const exchange = JSON.parse(line) as RecordedExchange;
      let conformance = conformances.get(exchange.basePath);
      if (conformance === undefined) {
        conformance = createConformance(createOpenApiDocument({ basePath: exchange.basePath }));
        conformances.set(exchange.basePath, conformance);
      }
      let body: unknown;
      try {
        body = JSON.parse(exchange.body);
      } catch {
        problems.push(`${exchange.file}: ${exchange.method} ${exchange.pathname} → ${exchange.status}: the body is not JSON`);
        continue;
      }
      for (const problem of conformance.check({ ...exchange, body })) problems.push(`${exchange.file}: ${problem}`);
      operations.add(conformance.resolve(exchange.method, exchange.pathname, exchange.basePath, exchange.status).operation);
    }
    t.diagnostic(`${lines.length} answers of ${new Set(lines.map((l) => (JSON.parse(l) as RecordedExchange).file)).size} test files checked`);
    // Unique problems only: one drift usually shows in many answers.
    const unique = [...new Set(problems)];
    assert.deepEqual(unique.slice(0, 40), [], `${unique.length} kinds of non-conforming answers among ${lines.length}`);
    // The recorder really saw the suite: thousands of answers, every operation.
    assert.ok(lines.length > 1000, `only ${lines.length} answers recorded`);
    for (const operation of ['GET /me', 'GET /devices', 'POST /devices/create', 'DELETE /devices/delete', 'GET /blacklist-monitors',
      'POST /blacklist-monitors/create', 'DELETE /blacklist-monitors/delete', 'GET /devices/results', 'GET /blacklist-monitors/results',
      'unmatched']) {
      assert.ok(operations.has(operation), `no answer of ${operation} recorded`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
