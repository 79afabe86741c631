/**
 * The Express host example (Express 5), and the same host on Express 4 (express4-server.ts): the API
 * mounted at /api/monitoring with basePath /v1, the host's own routes beside it, and express.json()
 * run ahead of the API on the devices routes only, so both kinds of body are checked: parsed by the
 * host (reused) and raw (read by the API).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { startFixture } from './harness.ts';
import { adapterSuite, assertError, call, OVERSIZED, rawExchange, type SuiteOptions } from './suite.ts';

/** Over express.json()'s own 100 kB limit: the host's parser refuses it before the API sees it. */
const OVER_HOST_LIMIT = { target_type: 'domain', target_value: 'huge.example.com', location: 'x'.repeat(150_000) };

const expressChecks: SuiteOptions = {
  async outside({ server, keys }) {
    const key = keys.readWrite;
    // The host's own route and its own 404: the API passed the requests on with next().
    const health = await call(`${server.origin}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(health.json, { status: 'ok' });
    for (const path of ['/elsewhere', '/api/monitoring', '/api/monitoring/v2/me', '/api/monitoring/v1x/me']) {
      const outside = await call(`${server.origin}${path}`, { key });
      assert.equal(outside.status, 404, path);
      assert.deepEqual(outside.json, { error: 'not found (host)' }, path);
    }
    // Below the base path, unknown paths are the API's to answer.
    assertError(await call(`${server.base}/nothing-here`, { key }), 404, 'unknown_route');
  },

  more(ctx) {
    it('reuses a body express.json() parsed: create, and its own error answers', async () => {
      const { base } = ctx.server;
      const key = ctx.keys.readWrite;
      const url = `${base}/devices/create`;
      const created = await call(url, { key, body: { target_type: 'ip', target_value: '1.1.1.1', port: 8443 } });
      assert.equal(created.status, 201, created.text);
      assert.equal((created.json.data as { port: number }).port, 8443);

      // The contract's rules still judge a parsed body: size, object, fields, numbers.
      assertError(await call(url, { key, body: OVERSIZED }), 413, 'payload_too_large');
      assertError(await call(url, { key, body: OVERSIZED, chunked: true }), 413, 'payload_too_large');
      assertError(await call(url, { key, body: '[]' }), 400, 'invalid_json');
      assertError(
        await call(url, { key, body: '', headers: { 'content-type': 'application/json' } }),
        400,
        'invalid_json',
      );
      const overflow = await call(url, { key, body: '{"target_type":"ip","target_value":"1.0.0.1","port":1e400}' });
      assertError(overflow, 400, 'validation_failed');
      assert.match(overflow.text, /"field":"port","code":"invalid_type"/);
      assertError(
        await call(url, { key, body: { target_type: 'ip', target_value: '1.0.0.2', expected_status: 200 } }),
        400,
        'validation_failed',
      );
    });

    it("answers in the API's envelope what express.json() refused, after authentication", async () => {
      const { base } = ctx.server;
      const url = `${base}/devices/create`;
      // Invalid JSON: body-parser passed an error on; the API still authenticates first.
      assertError(await call(url, { body: '{"target_type":' }), 401, 'missing_api_key');
      assertError(await call(url, { key: ctx.keys.readOnly, body: '{"target_type":' }), 403, 'insufficient_scope');
      assertError(await call(url, { key: ctx.keys.readWrite, body: '{"target_type":' }), 400, 'invalid_json');
      // Beyond the host parser's own limit, with and without Content-Length.
      assertError(await call(url, { key: ctx.keys.readWrite, body: OVER_HOST_LIMIT }), 413, 'payload_too_large');
      assertError(
        await call(url, { key: ctx.keys.readWrite, body: OVER_HOST_LIMIT, chunked: true }),
        413,
        'payload_too_large',
      );
      // A charset body-parser does not know: it leaves the stream unread, and the API refuses it as
      // it refuses any charset but UTF-8.
      assertError(
        await call(url, {
          key: ctx.keys.readWrite,
          body: { target_type: 'ip', target_value: '1.0.0.3' },
          headers: { 'content-type': 'application/json; charset=latin1' },
        }),
        400,
        'invalid_content_type',
      );
      // And UTF-8 declared is read as any JSON body.
      const utf8 = await call(url, {
        key: ctx.keys.readWrite,
        body: { target_type: 'ip', target_value: '1.0.0.3' },
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      assert.equal(utf8.status, 201, utf8.text);
    });

    it('a body express.json() parsed thousands deep is judged as on the other runtimes, never a stack', async () => {
      const url = `${ctx.server.base}/devices/create`;
      const deep = `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`;
      assertError(await call(url, { body: deep }), 401, 'missing_api_key');
      const judged = await call(url, { key: ctx.keys.readWrite, body: deep });
      assertError(judged, 400, 'validation_failed');
      assert.match(judged.text, /"field":"a","code":"unknown_field"/);
    });

    it('a compressed body the host parser cannot inflate is answered in the envelope, after authentication', async () => {
      const url = `${ctx.server.base}/devices/create`;
      for (const encoding of ['gzip', 'br', 'deflate']) {
        const headers = { 'content-type': 'application/json', 'content-encoding': encoding };
        assertError(await call(url, { body: '{}', headers }), 401, 'missing_api_key');
        // A coding the parser knows and fails to inflate: the bytes are spent, invalid_json. One it
        // does not know (br before body-parser 2): it leaves them, and the API reads `{}` as sent.
        const judged = await call(url, { key: ctx.keys.readWrite, body: '{}', headers });
        assertError(
          judged,
          400,
          judged.json.error?.code === 'validation_failed' ? 'validation_failed' : 'invalid_json',
        );
      }
    });

    it('serves a request in absolute form (RFC 9112 §3.2.2) like its origin form', async () => {
      const url = new URL(`${ctx.server.base}/me`);
      const answer = await rawExchange(
        url,
        `GET http://other.example${url.pathname} HTTP/1.1\r\nHost: other.example\r\n` +
          `Authorization: Bearer ${ctx.keys.readWrite}\r\nConnection: close\r\n\r\n`,
      );
      assert.match(answer, /^HTTP\/1\.1 200 /, answer);
      assert.match(answer, /"success":true/);
    });

    it('links the next page by the full path, mount path included', async () => {
      const { base } = ctx.server;
      const key = ctx.keys.readWrite;
      const page = await call(`${base}/devices?limit=1`, { key });
      assert.equal(page.status, 200, page.text);
      const first = (page.json.data as { id: number }[])[0]!.id;
      assert.equal(page.headers.get('link'), `</api/monitoring/v1/devices?limit=1&after_id=${first}>; rel="next"`);
    });
  },
};

adapterSuite('express', expressChecks);
adapterSuite(
  { name: 'Express 4 (fixture)', start: (url, env) => startFixture('express4-server.ts', url, env) },
  expressChecks,
);
