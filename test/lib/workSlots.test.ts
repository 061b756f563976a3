import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { workSlots } from '../../src/lib/workSlots.ts';

/** A piece of work that ends when told to, noting when it began. */
function pending(started: string[], name: string) {
  let end!: () => void;
  let fail!: (error: Error) => void;
  const work = () =>
    new Promise<string>((resolve, reject) => {
      started.push(name);
      end = () => resolve(name);
      fail = reject;
    });
  return { work, end: () => end(), fail: (error: Error) => fail(error) };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('work slots', () => {
  it('run at most their limit at once, the rest in the order they asked', async () => {
    const slots = workSlots(2);
    const started: string[] = [];
    const works = ['a', 'b', 'c', 'd', 'e'].map((name) => pending(started, name));
    const results = works.map(({ work }) => slots.run(work));
    await turn();
    assert.deepEqual(started, ['a', 'b']);
    assert.equal(slots.waiting, 3);
    works[1]!.end();
    await turn();
    assert.deepEqual(started, ['a', 'b', 'c']);
    works[0]!.end();
    works[2]!.end();
    await turn();
    assert.deepEqual(started, ['a', 'b', 'c', 'd', 'e']);
    assert.equal(slots.waiting, 0);
    works[3]!.end();
    works[4]!.end();
    assert.deepEqual(await Promise.all(results), ['a', 'b', 'c', 'd', 'e']);
  });

  it('free a slot whose work failed, and pass the failure on', async () => {
    const slots = workSlots(1);
    const started: string[] = [];
    const [a, b] = [pending(started, 'a'), pending(started, 'b')];
    const first = slots.run(a.work);
    const second = slots.run(b.work);
    await turn();
    a.fail(new Error('broken'));
    await assert.rejects(first, /broken/);
    await turn();
    assert.deepEqual(started, ['a', 'b']);
    b.end();
    assert.equal(await second, 'b');
  });

  it('take work whose signal aborts out of line, unrun, without giving its place to anyone', async () => {
    const slots = workSlots(1);
    const started: string[] = [];
    const [a, b, c] = [pending(started, 'a'), pending(started, 'b'), pending(started, 'c')];
    const first = slots.run(a.work);
    const gone = new AbortController();
    const second = slots.run(b.work, gone.signal);
    const third = slots.run(c.work);
    await turn();
    assert.equal(slots.waiting, 2);
    gone.abort(new Error('client gone'));
    await assert.rejects(second, /client gone/);
    assert.equal(slots.waiting, 1);
    // The slot is still the first work's: the third waits for it.
    await turn();
    assert.deepEqual(started, ['a']);
    a.end();
    await first;
    await turn();
    assert.deepEqual(started, ['a', 'c']);
    c.end();
    assert.equal(await third, 'c');
  });

  it('refuse work whose signal has already aborted, even with a slot free', async () => {
    const slots = workSlots(1);
    const gone = new AbortController();
    gone.abort();
    let ran = false;
    await assert.rejects(
      slots.run(async () => {
        ran = true;
      }, gone.signal),
      { name: 'AbortError' },
    );
    assert.equal(ran, false);
    assert.equal(await slots.run(async () => 'next'), 'next');
  });

  it('are a positive whole number', () => {
    for (const limit of [0, -1, 1.5, Number.NaN]) assert.throws(() => workSlots(limit), RangeError);
  });
});
