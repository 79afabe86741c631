/**
 * docs/api-reference.md is the output of `monitoring-api openapi --markdown`, committed so that a
 * reader of the repository or of the package sees it without running anything. This keeps it from
 * drifting from the schemas it is generated from.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { createOpenApiDocument, renderReference } from '../../core/openapi/index.ts';
import { ROOT } from '../support/root.ts';

const COMMITTED = join(ROOT, 'docs', 'api-reference.md');

test('docs/api-reference.md is what `monitoring-api openapi --markdown` prints (run `npm run openapi` after a change)', async () => {
  assert.equal(await readFile(COMMITTED, 'utf8'), renderReference(createOpenApiDocument()));
});
