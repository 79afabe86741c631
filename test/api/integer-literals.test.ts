import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nonIntegerMembers } from '../../core/http/integer-literals.ts';
import { createTestApi } from '../../core/testing/index.ts';

describe('nonIntegerMembers', () => {
  const cases: [string, string[]][] = [
    ['{"port":443}', []],
    ['{"port":443.0}', ['port']],
    ['{"port":1e2,"a":-0.5,"b":-3,"c":"1.5","d":[1.5],"e":{"f":2.5}}', ['port', 'a']],
    ['{"p\\"o.rt":4.0, "q" : 1E3 , "r":true,"s":null,"t":false}', ['p"o.rt', 'q']],
    ['{"port":1.5,"port":2}', []],
    ['{"port":2,"port":1.5}', ['port']],
    ['{"a":"x\\\\","port":8e1}', ['port']],
  ];
  for (const [text, expected] of cases) {
    it(text, () => assert.deepEqual(nonIntegerMembers(text), expected));
  }
});

describe('integer fields take JSON integers only (docs/contract.md §4)', () => {
  for (const literal of ['80.0', '8e1', '80E0', '8.0e1']) {
    it(`port ${literal} is invalid_type`, async () => {
      const t = createTestApi();
      const key = await t.createKey();
      const res = await t.request('/v1/devices/create', {
        method: 'POST',
        key,
        headers: { 'content-type': 'application/json' },
        body: `{"target_type":"domain","target_value":"int.example.com","port":${literal}}`,
      });
      assert.equal(res.status, 400);
      assert.deepEqual(
        res.body.error?.details?.map((d) => [d.field, d.code]),
        [['port', 'invalid_type']],
      );
    });
  }
  it('a flag written 1.0 is refused, 1 is accepted', async () => {
    const t = createTestApi();
    const key = await t.createKey();
    const send = (flag: string) =>
      t.request('/v1/blacklist-monitors/create', {
        method: 'POST',
        key,
        headers: { 'content-type': 'application/json' },
        body: `{"target_type":"domain","target_value":"flag.example.com","is_enabled":${flag}}`,
      });
    assert.equal((await send('1.0')).status, 400);
    assert.equal((await send('1')).status, 201);
  });
  it('localhost itself is forbidden_target, not merely invalid', async () => {
    const t = createTestApi();
    const key = await t.createKey();
    const res = await t.request('/v1/devices/create', {
      method: 'POST',
      key,
      body: { target_type: 'domain', target_value: 'LocalHost.' },
    });
    assert.deepEqual(
      res.body.error?.details?.map((d) => [d.field, d.code]),
      [['target_value', 'forbidden_target']],
    );
    const ip = await t.request('/v1/devices/create', {
      method: 'POST',
      key,
      body: { target_type: 'ip', target_value: 'localhost' },
    });
    assert.deepEqual(
      ip.body.error?.details?.map((d) => [d.field, d.code]),
      [['target_value', 'invalid_value']],
    );
  });
});
