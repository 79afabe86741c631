import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FreshRead } from '../../stores/kysely/fresh-read.ts';

/** Until the event loop's check phase has run: the end of the turn in which the test asked. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A read whose result is decided by the test: the number of reads started so far. */
function controlledReads() {
  let started = 0;
  const pending: (() => void)[] = [];
  const read = new FreshRead(
    () =>
      new Promise<number>((resolve) => {
        const n = ++started;
        pending.push(() => resolve(n));
      }),
  );
  return { read, started: () => started, finishNext: () => pending.shift()!() };
}

describe('FreshRead', () => {
  it('the callers of one turn share one read, begun only after that turn', async () => {
    const { read, started, finishNext } = controlledReads();
    const first = read.get(performance.now());
    const second = read.get();
    const third = read.get(performance.now());
    assert.equal(started(), 0, 'nothing is read while the turn may still deliver requests');
    assert.equal(first, second);
    assert.equal(second, third);
    await nextTurn();
    assert.equal(started(), 1, 'one read for the three');
    finishNext();
    assert.deepEqual(await Promise.all([first, second, third]), [1, 1, 1]);
  });

  it('a caller never gets a read that started before it asked', async () => {
    const { read, started, finishNext } = controlledReads();
    const first = read.get();
    await nextTurn();
    assert.equal(started(), 1);
    const second = read.get();
    const third = read.get(performance.now());
    await nextTurn();
    assert.equal(started(), 1, 'the later callers wait for the next read, not a second parallel one');
    finishNext();
    assert.equal(await first, 1);
    await nextTurn();
    assert.equal(started(), 2, 'the next read begins once the running one has ended');
    const fourth = read.get();
    finishNext();
    assert.equal(await second, 2);
    assert.equal(await third, 2, 'callers that arrived during one read share the next');
    await nextTurn();
    finishNext();
    assert.equal(await fourth, 3, 'one that arrived while the shared read ran waits for another');
  });

  it('a caller that arrived before a read started shares it, running or done; one after it waits for the next', async () => {
    const { read, started, finishNext } = controlledReads();
    const early = performance.now();
    const first = read.get(early);
    await nextTurn();
    assert.equal(started(), 1);
    const again = read.get(early);
    finishNext();
    assert.equal(await first, 1);
    assert.equal(await again, 1, 'the running read started after this caller arrived');
    assert.equal(await read.get(early), 1, 'the finished read too, without another read');
    assert.equal(started(), 1);
    const late = read.get(performance.now());
    await nextTurn();
    assert.equal(started(), 2, 'arrived after the read started: a read of its own');
    finishNext();
    assert.equal(await late, 2);
  });

  it('a read that completes at once serves no caller that arrived after it began', async () => {
    let reads = 0;
    const read = new FreshRead(async () => ++reads);
    const arrived = performance.now();
    assert.equal(await read.get(arrived), 1);
    assert.equal(await read.get(arrived), 1, 'arrived before it: shared');
    assert.equal(await read.get(performance.now()), 2, 'arrived after it: read again');
    assert.equal(await read.get(), 3, 'no arrival named: read again');
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
    await assert.rejects(second, /down/, 'the callers of that turn shared the failed read');
    const arrived = performance.now();
    assert.equal(await read.get(arrived), 2);
    assert.equal(await read.get(), 3);
  });
});
