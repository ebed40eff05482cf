import { describe, expect, it } from 'vitest';
import { StartedOnRead } from '../../src/core/kube/watch/started-on-read.js';

function fakeWatch() {
  const calls: string[] = [];
  const watch = {
    synced: false,
    start: async () => {
      calls.push('start');
      await Promise.resolve(); // listing takes a while
      watch.synced = true;
    },
    stop: async () => void calls.push('stop'),
  };
  return { watch, calls };
}

describe('StartedOnRead', () => {
  it('the first read starts the watch once and says it has not listed yet; later reads see it listed', async () => {
    const { watch, calls } = fakeWatch();
    const lifecycle = new StartedOnRead(watch);
    expect(lifecycle.wanted()).toBe(false);
    await lifecycle.start();
    expect(lifecycle.wanted()).toBe(true);
    expect(calls).toEqual(['start']);
  });

  it('a watch never read nor started is not stopped; a started one is, once started', async () => {
    const idle = fakeWatch();
    await new StartedOnRead(idle.watch).stop();
    expect(idle.calls).toEqual([]);
    const used = fakeWatch();
    const lifecycle = new StartedOnRead(used.watch);
    await Promise.all([lifecycle.start(), lifecycle.start()]);
    await lifecycle.stop();
    expect(used.calls).toEqual(['start', 'stop']);
  });
});
