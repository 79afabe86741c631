/**
 * docs/engine.md, "Scheduling": a DNS outage is logged once. Lookups sent during an outage are
 * still in flight when the server comes back, and time out one after another after its first
 * answer: they say nothing about the server since then, and must not open a second "outage".
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { systemClock } from '../../core/index.ts';
import { DnsHealth } from '../../engine/dnsbl/dns-health.ts';
import { askWithDeadline, type DnsblResolver } from '../../engine/dnsbl/resolver.ts';
import { keepingLogger } from '../support/engine-fixtures.ts';

/** A resolver whose lookups settle only when the test says: `answer()` or never. */
function controlledResolver(): DnsblResolver & { answerAll(): void } {
  const pending: ((addresses: string[]) => void)[] = [];
  return {
    resolve4: () => new Promise<string[]>((resolve) => pending.push(resolve)),
    answerAll: () => {
      for (const resolve of pending.splice(0)) resolve([]);
    },
  };
}

it('lookups that were in flight when the server answered again do not start a second outage', async () => {
  const logger = keepingLogger();
  const health = new DnsHealth('127.0.0.1:53', logger, systemClock);
  const silent: DnsblResolver = { resolve4: () => new Promise<string[]>(() => undefined) };
  const warnings = () => logger.lines.filter((l) => l.level === 'warn');

  // The outage: three lookups time out with no answer between them.
  await Promise.all([1, 2, 3].map((n) => askWithDeadline(silent, `${n}.zone.test`, 20, health)));
  assert.equal(warnings().length, 1);

  // Five more go out during the outage, with a longer deadline; then the server comes back and
  // answers a new lookup before those five time out.
  const stale = [4, 5, 6, 7, 8].map((n) => askWithDeadline(silent, `${n}.zone.test`, 60, health));
  const back = controlledResolver();
  const answered = askWithDeadline(back, 'new.zone.test', 1_000, health);
  back.answerAll();
  assert.deepEqual(await answered, { addresses: [] });
  assert.equal(logger.lines.filter((l) => /answers again/.test(l.message)).length, 1);

  for (const reply of await Promise.all(stale)) assert.deepEqual(reply, { code: 'ETIMEOUT' });
  assert.equal(warnings().length, 1, `no second warning: ${JSON.stringify(warnings())}`);

  // Lookups sent after that answer that time out are a new outage, told once.
  await Promise.all([9, 10, 11].map((n) => askWithDeadline(silent, `${n}.zone.test`, 20, health)));
  assert.equal(warnings().length, 2);
});
