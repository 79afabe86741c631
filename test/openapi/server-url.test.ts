/**
 * docs/embedding.md, "Tools that read the OpenAPI document": `monitoring-api openapi
 * --server-url URL` writes a document whose server is absolute, which tools that join the server
 * URL and a path (Prism, openapi-fetch, most generated clients) need; the committed document's
 * server is relative to the host that serves it.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runOpenApiCommand } from '../../cli/commands/openapi-command.ts';
import { createMonitoringApi, MemoryStore } from '../../core/internal.ts';
import { createOpenApiDocument, serializeOpenApiDocument, type OpenApiDocument } from '../../core/openapi/index.ts';

const document = createOpenApiDocument();

test('openapi --server-url --output writes a server a client can send to: the path joined to it reaches the API', async (t) => {
  // What Prism, openapi-fetch and most generated clients do: the server URL, then the path.
  // The default server is relative (`/v1`, the host that serves the document): a URL no
  // request can be made from on its own.
  assert.throws(() => new Request(`${document.servers[0]!.url}/me`), TypeError);
  const dir = await mkdtemp(join(tmpdir(), 'monitoring-openapi-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'openapi.json');
  const io = { stdout: () => assert.fail('--output writes the file'), stderr: (text: string) => assert.fail(text) };
  assert.equal(await runOpenApiCommand(['--server-url', 'http://127.0.0.1:8080/v1', '--output', file], io), 0);
  const written = JSON.parse(await readFile(file, 'utf8')) as OpenApiDocument;
  assert.deepEqual(written.paths, JSON.parse(serializeOpenApiDocument(document)).paths);
  const server = written.servers[0]!.url;
  assert.equal(server, 'http://127.0.0.1:8080/v1');
  const store = new MemoryStore();
  const api = createMonitoringApi({ store });
  t.after(() => api.close());
  const user = await api.keys.createUser({ name: 'client' });
  const { token } = await api.keys.createApiKey({ userId: user.id, scopes: ['read'] });
  const response = await api.fetch(new Request(`${server}/me`, { headers: { authorization: `Bearer ${token}` } }), {
    clientAddress: '127.0.0.1',
  });
  assert.equal(response.status, 200, await response.clone().text());
});
