/**
 * The bench's read loop (bench/readLoop.ts): it reads what it says, as often as it says, checks
 * the answers as the bench does (a tool that fails is never timed as if it answered), and says
 * what is wrong with its settings before it seeds anything.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type LoopOptions, readLoop } from '../../bench/readLoop.ts';

const options: LoopOptions = {
  users: 2,
  rounds: 2,
  clients: 1,
  read: 'search',
  cold: false,
  postgres: false,
};

describe('the read loop', () => {
  it('times every read of every round, with the CPU of the request thread within that of the process and the bytes it allocated', async () => {
    const figures = await readLoop(options);
    assert.equal(figures.reads, 4);
    assert.ok(figures.p50 > 0 && figures.p90 >= figures.p50);
    assert.ok(figures.requestThreadCpuMs > 0 && figures.requestThreadCpuMs <= figures.cpuMs);
    // A search over 20 calendars allocates hundreds of KiB (lists, places, its answer), never none.
    assert.ok(figures.allocatedBytes > 64 * 1024, String(figures.allocatedBytes));
    // On Linux, the CPU by kind of thread: every kind named, the request thread's within the
    // process's (the kernel counts in ticks of 10 ms, over four reads: a coarse figure).
    if (process.platform === 'linux') {
      const byThread = figures.threadCpuMs!;
      assert.deepEqual([...byThread.keys()], ['request thread', 'worker threads', "V8's helpers", 'other']);
      assert.ok(byThread.get('request thread')! <= figures.cpuMs + 10, JSON.stringify([...byThread]));
    }
  });

  it('reads each person once when cold, and checks those first answers (a page of events)', async () => {
    const figures = await readLoop({ ...options, read: 'events', cold: true, users: 3 });
    assert.equal(figures.reads, 2);
  });

  it('reads a tool by its name, sent only the arguments it takes (get_current_time takes none)', async () => {
    const figures = await readLoop({ ...options, read: 'get_current_time', users: 1, rounds: 1 });
    assert.equal(figures.reads, 1);
  });

  it('fails on a tool that answers an error instead of timing it', async () => {
    await assert.rejects(readLoop({ ...options, read: 'no_such_tool', users: 1 }), /no_such_tool/);
  });

  it('refuses settings it cannot run before seeding anything', async () => {
    await assert.rejects(readLoop({ ...options, users: Number.NaN }), /USERS/);
    await assert.rejects(readLoop({ ...options, cold: true, users: 1 }), /at least 2 when COLD/);
    await assert.rejects(readLoop({ ...options, rounds: 0 }), /ROUNDS/);
  });
});
