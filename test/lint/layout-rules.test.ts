/**
 * The lint rules that encode the Layout table (docs/development.md) fire: each boundary is crossed
 * by a snippet linted as if it were a file of the area, through ESLint's Node API and the
 * project's own eslint.config.js, and the rule must report it; the allowed way must pass.
 * (That the tree itself keeps them is `npm run lint`, which `npm test` runs.)
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ESLint } from 'eslint';
import { ROOT } from '../support/root.ts';

const eslint = new ESLint({ cwd: ROOT });

/** The rule ids and messages ESLint reports for `code` as the file at `path` (from the root). */
async function problems(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  assert.ok(result !== undefined, `no result for ${path}`);
  return result.messages
    .filter((m) => m.ruleId?.startsWith('layout/') || m.ruleId === 'no-restricted-globals' || m.fatal === true)
    .map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`);
}

async function refused(path: string, code: string, expected: RegExp): Promise<void> {
  const found = await problems(path, code);
  assert.equal(found.length, 1, `${path}: expected one problem for\n${code}\ngot ${JSON.stringify(found)}`);
  assert.match(found[0]!, expected);
}

async function allowed(path: string, code: string): Promise<void> {
  assert.deepEqual(await problems(path, code), [], `${path}: expected no problem for\n${code}`);
}

describe('core/ imports only core files and its listed libraries', () => {
  test('no driver, no node:http, no other package', async () => {
    await refused(
      'core/x.ts',
      "import pg from 'pg';\nexport { pg };\n",
      /^layout\/imports: core\/ may import only .* not pg$/,
    );
    await refused('core/x.ts', "import type { Kysely } from 'kysely';\nexport type { Kysely };\n", /not kysely$/);
    await refused(
      'core/x.ts',
      "import { createServer } from 'node:http';\nexport { createServer };\n",
      /not node:http$/,
    );
    await refused('core/x.ts', "export { default } from 'ioredis';\n", /not ioredis$/);
    await refused('core/x.ts', "export const load = () => import('pg');\n", /not pg$/);
  });

  test('no adapters/, stores/, engine/ or cli/', async () => {
    for (const area of ['adapters/node', 'stores/kysely', 'engine/webhooks', 'cli']) {
      await refused(
        'core/http/x.ts',
        `export * from '../../${area}/index.ts';\n`,
        new RegExp(`core/ may not import ${area.split('/')[0]}/`),
      );
    }
  });

  test('its libraries and its own files pass', async () => {
    await allowed(
      'core/x.ts',
      [
        "import { Router } from 'itty-router';",
        "import * as v from 'valibot';",
        "import { toJsonSchema } from '@valibot/to-json-schema';",
        "import ipaddr from 'ipaddr.js';",
        "import { fileURLToPath } from 'node:url';",
        "import { systemClock } from './clock.ts';",
        'export { Router, v, toJsonSchema, ipaddr, fileURLToPath, systemClock };',
        '',
      ].join('\n'),
    );
  });
});

describe('adapters/, stores/ and engine/ import the core through core/index.ts or core/internal.ts', () => {
  for (const area of ['adapters/node', 'stores/kysely', 'engine/webhooks']) {
    test(`${area.split('/')[0]}/`, async () => {
      await refused(
        `${area}/x.ts`,
        "import { errors } from '../../core/http/api-error.ts';\nexport { errors };\n",
        /imports the core through core\/index.ts or core\/internal.ts, not core\/http\/api-error.ts/,
      );
      await refused(
        `${area}/x.ts`,
        "import type { Device } from '../../core/records/index.ts';\nexport type { Device };\n",
        /not core\/records\/index.ts/,
      );
      await allowed(
        `${area}/x.ts`,
        "import { errors, type Device } from '../../core/internal.ts';\nexport { errors, type Device };\n",
      );
      await allowed(`${area}/x.ts`, "import type { Device } from '../../core/index.ts';\nexport type { Device };\n");
    });
  }
});

describe('the engine, adapters and stores keep out of each other and of cli/', () => {
  const cases: [from: string, to: string][] = [
    ['engine/devices', 'adapters/node'],
    ['engine/devices', 'stores/kysely'],
    ['engine/devices', 'cli'],
    ['adapters/node', 'engine/webhooks'],
    ['adapters/node', 'cli'],
    ['adapters/node', 'stores/kysely'],
    ['stores/kysely', 'engine/webhooks'],
    ['stores/kysely', 'cli'],
    ['stores/kysely', 'adapters/node'],
  ];
  for (const [from, to] of cases) {
    test(`${from.split('/')[0]}/ may not import ${to.split('/')[0]}/`, async () => {
      await refused(
        `${from}/x.ts`,
        `export * from '../../${to}/index.ts';\n`,
        new RegExp(`${from.split('/')[0]}/ may not import ${to.split('/')[0]}/`),
      );
    });
  }

  test('an area imports its own files, and the Express adapter the node one', async () => {
    await allowed('engine/devices/x.ts', "export * from '../probes/http-probe.ts';\n");
    await allowed('adapters/express/x.ts', "export * from '../node/index.ts';\n");
  });
});

describe('client/ imports the core as types only, and nothing of Node', () => {
  test('a value import of the core, even of types only in braces, is refused', async () => {
    await refused(
      'client/x.ts',
      "import { MemoryStore } from '../core/index.ts';\nexport { MemoryStore };\n",
      /client\/ imports the core as types only/,
    );
    // `import { type X }` leaves `import {} from '...'` in the output under verbatimModuleSyntax.
    await refused(
      'client/x.ts',
      "import { type Device } from '../core/index.ts';\nexport type { Device };\n",
      /as types only/,
    );
    await refused(
      'client/x.ts',
      "import type { Device } from '../core/records/index.ts';\nexport type { Device };\n",
      /not core\/records\/index.ts/,
    );
  });

  test('no package, no node: module, no Node global', async () => {
    await refused(
      'client/x.ts',
      "import { request } from 'node:https';\nexport { request };\n",
      /client\/ .* may not import node:https$/,
    );
    await refused('client/x.ts', "import { v } from 'valibot';\nexport { v };\n", /may not import valibot$/);
    await refused(
      'client/x.ts',
      'export const home = process.env.HOME;\n',
      /^no-restricted-globals: .*process.* no Node globals/,
    );
    await refused('client/x.ts', "export const bytes = Buffer.from('x');\n", /^no-restricted-globals: .*Buffer/);
  });

  test('types from the core and its own files pass', async () => {
    await allowed(
      'client/x.ts',
      "import type { Device } from '../core/index.ts';\nimport { ClientError } from './errors.ts';\nexport { ClientError, type Device };\n",
    );
  });
});

describe('what ships, and the examples', () => {
  test('shipped code imports only dependencies, and nothing from test/, bench/ or examples/', async () => {
    await refused(
      'cli/x.ts',
      "import fc from 'fast-check';\nexport { fc };\n",
      /fast-check is not in package.json "dependencies"/,
    );
    await refused(
      'stores/kysely/x.ts',
      "export * from '../../test/support/stores.ts';\n",
      /stores\/ may not import test\//,
    );
    await allowed(
      'stores/kysely/x.ts',
      "import { sql } from 'kysely';\nimport { readFileSync } from 'node:fs';\nexport { sql, readFileSync };\n",
    );
  });

  test('examples import the package through its public entry points', async () => {
    await refused(
      'examples/node/x.ts',
      "export * from '../../core/records/index.ts';\n",
      /through a public entry point .* not core\/records\/index.ts/,
    );
    await refused(
      'examples/node/x.ts',
      "export * from '../../core/internal.ts';\n",
      /through a public entry point .* not core\/internal.ts/,
    );
    await allowed(
      'examples/node/x.ts',
      "export * from '../../core/index.ts';\nexport * from '../../adapters/node/index.ts';\nexport * from '../../core/testing/index.ts';\n",
    );
  });

  test('test/ may import anything', async () => {
    await allowed(
      'test/api/x.ts',
      "export * from '../../core/records/index.ts';\nexport * from '../../stores/kysely/rows.ts';\n",
    );
  });
});

describe('no import cycles', () => {
  test('an import that leads back to the importing file is reported with the chain', async () => {
    // core/store/store.ts imports core/store/store-calls.ts: importing it back closes a cycle.
    await refused(
      'core/store/store-calls.ts',
      "import type { Store } from './store.ts';\nexport type { Store };\n",
      /^layout\/no-cycles: import cycle: core\/store\/store\.ts -> (?:\S+ -> )*core\/store\/store-calls\.ts$/,
    );
    await refused(
      'test/stores/contract-context.ts',
      "import { storeContract } from './store-contract.ts';\nexport { storeContract };\n",
      /^layout\/no-cycles: import cycle: test\/stores\/store-contract\.ts -> (?:\S+ -> )*test\/stores\/contract-context\.ts$/,
    );
  });

  test('an import of a file that does not import back is allowed, and a comment naming one is no import', async () => {
    await allowed('core/x.ts', "import type { Store } from './store/store.ts';\nexport type { Store };\n");
    // The imported file names this one only in a comment and a string (test/lint/fixtures/).
    await allowed(
      'test/lint/fixtures/imports-commented.ts',
      "import { value } from './commented-import.ts';\nexport { value };\n",
    );
  });
});
