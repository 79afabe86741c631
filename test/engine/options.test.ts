/** docs/engine.md, "Configuration": the defaults, and bad values refused before anything runs. */
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { describe, it } from 'node:test';
import { MemoryStore } from '../../core/index.ts';
import { createMonitoringEngine, DEFAULT_DNSBL_DOMAIN_ZONES, DEFAULT_DNSBL_ZONES } from '../../engine/index.ts';
import { normalizeDnsServer } from '../../engine/net/dns-servers.ts';
import { resolveEngineOptions } from '../../engine/options.ts';

const store = new MemoryStore();

describe('engine options', () => {
  it('defaults', () => {
    const o = resolveEngineOptions({ store });
    assert.equal(o.concurrency, 100);
    assert.equal(o.probeTimeoutMs, 10_000);
    assert.equal(o.connectTimeoutMs, 10_000);
    assert.equal(o.retryDelayS, 30);
    assert.equal(o.failuresBeforeDown, 2);
    assert.equal(o.resultRetentionHours, 168);
    assert.equal(o.reportRetentionHours, 9600);
    assert.equal(o.allowPrivateTargets, false);
    assert.equal(o.workerId, `${hostname()}:${process.pid}`);
    assert.deepEqual(o.dnsServers, []);
    assert.deepEqual(o.dnsblZones, DEFAULT_DNSBL_ZONES);
    assert.deepEqual(o.dnsblDomainZones, DEFAULT_DNSBL_DOMAIN_ZONES);
  });

  it('the connect timeout never exceeds the probe timeout unless set', () => {
    assert.equal(resolveEngineOptions({ store, probeTimeoutMs: 3_000 }).connectTimeoutMs, 3_000);
    assert.equal(
      resolveEngineOptions({ store, probeTimeoutMs: 3_000, connectTimeoutMs: 5_000 }).connectTimeoutMs,
      5_000,
    );
  });

  const bad: [string, Parameters<typeof resolveEngineOptions>[0], RegExp][] = [
    ['concurrency 0', { store, concurrency: 0 }, /concurrency/],
    ['a fractional timeout', { store, probeTimeoutMs: 1.5 }, /probeTimeoutMs/],
    ['a negative retention', { store, resultRetentionHours: -1 }, /resultRetentionHours/],
    ['a fractional report retention', { store, reportRetentionHours: 1.5 }, /reportRetentionHours/],
    ['a bad zone', { store, dnsblZones: ['not a zone'] }, /"not a zone"/],
    ['a bad domain zone', { store, dnsblDomainZones: ['x'] }, /"x"/],
    ['a DNS server by name', { store, dnsServers: ['dns.example.net'] }, /--dns-server/],
    ['an empty worker id', { store, workerId: ' ' }, /workerId/],
  ];
  for (const [what, options, pattern] of bad) {
    it(`refuses ${what}`, () => {
      assert.throws(
        () => createMonitoringEngine(options),
        (error: unknown) => error instanceof RangeError && pattern.test(error.message),
      );
    });
  }
});

describe('--dns-server values', () => {
  const cases: [string, string | null][] = [
    ['192.0.2.53', '192.0.2.53'],
    ['127.0.0.1:5353', '127.0.0.1:5353'],
    ['2001:db8::53', '2001:db8::53'],
    ['[2001:db8::53]:5353', '[2001:db8::53]:5353'],
    ['[::1]', '::1'],
    ['127.0.0.1:0', null],
    ['127.0.0.1:70000', null],
    ['dns.example.net', null],
    ['127.1', null],
    ['', null],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () =>
      assert.equal(normalizeDnsServer(input), expected));
  }
});
