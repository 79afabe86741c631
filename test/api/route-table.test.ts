import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRouteTable } from '../../core/routes/route-table.ts';

// The public routes to come take parameters (`/status/<slug>`, `/ping/<token>/<signal>`); the
// table is held to them here, and to the API's fixed routes through test/api/routes.test.ts.
const resolve = createRouteTable([
  { method: 'GET', path: '/devices', value: 'list' },
  { method: 'POST', path: '/devices/create', value: 'create' },
  { method: 'GET', path: '/status/:slug', value: 'page' },
  { method: 'GET', path: '/status/:slug/summary.json', value: 'summary' },
  { method: 'GET', path: '/ping/:token/:signal?', value: 'ping' },
  { method: 'POST', path: '/ping/:token/:signal?', value: 'ping' },
  { method: 'GET', path: '/things/:id', value: 'thing' },
  { method: 'DELETE', path: '/things/fixed', value: 'fixed' },
]);

describe('the route table', () => {
  it('resolves a fixed path to its route, with no parameters', async () => {
    assert.deepEqual(resolve('GET', '/devices'), {
      kind: 'route',
      value: 'list',
      pattern: '/devices',
      params: {},
    });
    // Remembered resolutions are answered as the first was.
    assert.deepEqual(resolve('GET', '/devices'), {
      kind: 'route',
      value: 'list',
      pattern: '/devices',
      params: {},
    });
  });

  it('gives a path its parameters', async () => {
    assert.deepEqual(resolve('GET', '/status/acme-prod'), {
      kind: 'route',
      value: 'page',
      pattern: '/status/:slug',
      params: { slug: 'acme-prod' },
    });
    assert.deepEqual(resolve('GET', '/status/acme/summary.json'), {
      kind: 'route',
      value: 'summary',
      pattern: '/status/:slug/summary.json',
      params: { slug: 'acme' },
    });
    const token = '5f6e2b1c-8d3a-4c7e-9b0f-1a2b3c4d5e6f';
    const withSignal = resolve('POST', `/ping/${token}/fail`);
    assert.equal(withSignal.kind, 'route');
    assert.deepEqual(withSignal.kind === 'route' && withSignal.params, { token, signal: 'fail' });
    const bare = resolve('GET', `/ping/${token}`);
    assert.equal(bare.kind === 'route' && bare.params.token, token);
    assert.equal(bare.kind === 'route' && bare.params.signal, undefined);
  });

  it('answers a path with parameters asked again as the first time, past the paths it remembers', () => {
    const first = resolve('GET', '/status/acme-prod');
    const tokens = Array.from({ length: 1_500 }, (_, i) => `5f6e2b1c-8d3a-4c7e-9b0f-${String(i).padStart(12, '0')}`);
    for (const token of tokens) {
      const resolved = resolve('GET', `/ping/${token}/start`);
      assert.deepEqual(resolved.kind === 'route' && resolved.params, { token, signal: 'start' });
    }
    for (const token of [tokens[0]!, tokens[1_499]!]) {
      const again = resolve('GET', `/ping/${token}/start`);
      assert.deepEqual(again.kind === 'route' && again.params, { token, signal: 'start' });
    }
    assert.deepEqual(resolve('GET', '/status/acme-prod'), first);
    assert.equal(resolve('PATCH', '/status/acme-prod').kind, 'method_not_allowed');
  });

  it('answers a known pattern asked with another method with the methods it takes', async () => {
    assert.deepEqual(resolve('DELETE', '/devices'), {
      kind: 'method_not_allowed',
      pattern: '/devices',
      allow: ['GET'],
    });
    assert.deepEqual(resolve('PUT', '/ping/abc/start'), {
      kind: 'method_not_allowed',
      pattern: '/ping/:token/:signal?',
      allow: ['GET', 'POST'],
    });
    // A fixed pattern is judged before a pattern with parameters that also matches the path.
    assert.deepEqual(resolve('GET', '/things/fixed'), {
      kind: 'route',
      value: 'thing',
      pattern: '/things/:id',
      params: { id: 'fixed' },
    });
    assert.deepEqual(resolve('PATCH', '/things/fixed'), {
      kind: 'method_not_allowed',
      pattern: '/things/fixed',
      allow: ['DELETE'],
    });
  });

  it('never lets the URL parser rewrite a path before it is matched', async () => {
    for (const path of [
      '/status/..',
      '/status/.',
      '/status/%2e%2e',
      '/status/a%2Fb',
      '/status/a\\b',
      '/x/../devices',
      '/x/%2e%2e/devices',
      '/./devices',
      '//devices',
      '/status//summary.json',
      '/status/.hidden',
      'devices',
      '',
    ]) {
      assert.deepEqual(resolve('GET', path), { kind: 'unknown' }, path);
    }
  });

  it('does not match a path that no pattern covers', async () => {
    assert.deepEqual(resolve('GET', '/status'), { kind: 'unknown' });
    assert.deepEqual(resolve('GET', '/status/a/b'), { kind: 'unknown' });
    assert.deepEqual(resolve('GET', '/ping/a/b/c'), { kind: 'unknown' });
  });
});
