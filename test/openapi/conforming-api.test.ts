/**
 * The check every API test's answers go through (conforming-api.ts, installed by
 * test/api/helpers.ts): it passes what the API really answers and fails each kind of drift, in a
 * string body, a streamed body, a status or a header. The drifts are made by altering the real
 * API's answers beneath the check, since the API itself conforms.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { ApiResponse } from '../../core/http/api-response.ts';
import { createTestApi as createKitTestApi, type TestApi } from '../../core/testing/index.ts';
import { createTestApi } from '../api/helpers.ts';
import { checkAnswersAgainstDocument } from './conforming-api.ts';

const apis: TestApi[] = [];
after(async () => {
  for (const t of apis) await t.close();
});

/** A kit API whose answers `alter` changes before the check sees them. */
function altered(alter: (response: ApiResponse) => ApiResponse): TestApi {
  const t = createKitTestApi();
  apis.push(t);
  const handle = t.api.handle.bind(t.api);
  t.api.handle = async (request, context) => alter(await handle(request, context));
  checkAnswersAgainstDocument(t.api);
  return t;
}

async function* chunks(...parts: string[]): AsyncGenerator<string> {
  yield* parts;
}

test("real answers pass, through the kit's request and through fetch", async () => {
  const t = createTestApi();
  apis.push(t);
  const key = await t.createKey();
  assert.equal((await t.request('/v1/me', { key })).status, 200);
  assert.equal(
    (
      await t.request('/v1/devices/create', {
        method: 'POST',
        key,
        body: { target_type: 'domain', target_value: 'example.com' },
      })
    ).status,
    201,
  );
  assert.equal(
    (await t.request('/v1/devices/create', { method: 'POST', key, body: { target_type: 'nope' } })).status,
    400,
  );
  const listed = await t.api.fetch(
    new Request('http://monitoring.test/v1/devices', { headers: { authorization: `Bearer ${key.token}` } }),
  );
  assert.equal(listed.status, 200);
  assert.equal((JSON.parse(await listed.text()) as { data: unknown[] }).data.length, 1);
});

test('a field the document does not name fails the call, naming the answer', async () => {
  const t = altered((response) => ({
    ...response,
    body: JSON.stringify({ ...(JSON.parse(response.body as string) as object), extra: 1 }),
  }));
  const key = await t.createKey();
  await assert.rejects(t.request('/v1/me', { key }), (error: Error) => {
    assert.equal(error.name, 'AssertionError');
    assert.match(error.message, /GET \/v1\/me → 200 \(GET \/me\): body .* does not match/);
    return true;
  });
});

test('an undocumented status, a missing required header and a non-JSON body fail', async () => {
  const teapot = altered((response) => ({ ...response, status: 418 }));
  await assert.rejects(teapot.request('/v1/me'), /GET \/v1\/me → 418 \(GET \/me\): status not documented/);
  const bare = altered((response) => {
    const { 'x-request-id': _dropped, ...headers } = response.headers;
    return { ...response, headers };
  });
  await assert.rejects(bare.request('/v1/me'), /required header X-Request-Id missing/i);
  const text = altered((response) => ({ ...response, body: 'not json' }));
  await assert.rejects(text.request('/v1/me'), /the body is not JSON/);
});

test('a streamed body is checked at its end: a drift in it fails the read', async () => {
  // The API streams only lists longer than a batch; here the list's answer becomes a stream.
  let streamed = 0;
  const t = altered((response) => {
    if (response.status !== 200) return response;
    streamed++;
    return { ...response, body: chunks('{"success":true,"data":[', '{"id":"one"}', ']}') };
  });
  const key = await t.createKey();
  const response = await t.api.fetch(
    new Request('http://monitoring.test/v1/devices', { headers: { authorization: `Bearer ${key.token}` } }),
  );
  assert.equal(streamed, 1, 'the list was streamed');
  await assert.rejects(response.text(), /GET \/v1\/devices → 200 \(GET \/devices\): body .* does not match/);
});
