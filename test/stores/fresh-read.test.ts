import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FreshRead } from '../../stores/kysely/fresh-read.ts';

/** A read whose result is decided by the test: the number of reads started so far. */
function controlledReads() {
  let started = 0;
  const pending: (() => void)[] = [];
  const read = new FreshRead(() => new Promise<number>((resolve) => {
    const n = ++started;
    pending.push(() => resolve(n));
  }));
  return { read, started: () => started, finishNext: () => pending.shift()!() };
}

describe('FreshRead', () => {
  it('a caller never gets a read that started before it asked', async () => {
    const { read, started, finishNext } = controlledReads();
    const first = read.get();
    const second = read.get();
    const third = read.get();
    assert.equal(started(), 1, 'the later callers wait for the next read, not a second parallel one');
    finishNext();
    assert.equal(await first, 1);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(started(), 2);
    const fourth = read.get();
    finishNext();
    assert.equal(await second, 2);
    assert.equal(await third, 2, 'callers that arrived during one read share the next');
    await new Promise((resolve) => setImmediate(resolve));
    finishNext();
    assert.equal(await fourth, 3, 'one that arrived while the shared read ran waits for another');
  });

  it('a caller that arrived before a read started shares it, running or done; one after it waits for the next', async () => {
    const { read, started, finishNext } = controlledReads();
    const early = performance.now();
    const first = read.get(early);
    assert.equal(started(), 1);
    assert.equal(read.get(early), first, 'the running read started after this caller arrived');
    finishNext();
    assert.equal(await first, 1);
    assert.equal(await read.get(early), 1, 'the finished read too, without another round trip');
    assert.equal(started(), 1);
    const late = read.get(performance.now());
    assert.equal(started(), 2, 'arrived after the read started: a read of its own');
    finishNext();
    assert.equal(await late, 2);
  });

  it('a failed read fails its callers only, and the next read starts afresh', async () => {
    let calls = 0;
    const read = new FreshRead(async () => {
      calls++;
      if (calls === 1) throw new Error('down');
      return calls;
    });
    const [first, second] = [read.get(), read.get()];
    await assert.rejects(first, /down/);
    assert.equal(await second, 2);
    assert.equal(await read.get(), 3);
  });
});
