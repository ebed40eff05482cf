import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { KeptWatch } from '../../src/core/kube/watch/kept-watch.js';
import { ListWatch, type Listed, type WatchFn } from '../../src/core/kube/watch/list-watch.js';

const object = (name: string, resourceVersion: string): KubernetesObject => ({ metadata: { name, namespace: 'ns', resourceVersion } });

/**
 * A server in memory: `lists` answers each list in turn (an Error is a failed list); a watch
 * stays open until aborted or until `breakWatch` ends it with an error.
 */
function fakeServer(lists: Array<Listed<KubernetesObject> | Error>) {
  let listed = 0;
  let failWatch: ((error: Error) => void) | undefined;
  const list = async () => {
    const answer = lists[Math.min(listed++, lists.length - 1)]!;
    if (answer instanceof Error) throw answer;
    return answer;
  };
  const watch: WatchFn = (_rv, onOpen, _onEvent, signal) =>
    new Promise<void>((resolve, reject) => {
      onOpen();
      failWatch = reject;
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  return {
    make: () => new ListWatch<KubernetesObject>(list, watch),
    breakWatch: (error: Error) => failWatch?.(error),
    lists: () => listed,
  };
}

describe('KeptWatch: one informer kept running', () => {
  it('says nothing until the first list, then serves it and reports it as the first', async () => {
    const server = fakeServer([{ items: [object('a', '1')], metadata: { resourceVersion: '1' } }]);
    const listedFirst: boolean[] = [];
    const watch = new KeptWatch({ make: server.make, wire: () => undefined, onListed: (first) => listedFirst.push(first), onFailure: () => undefined });
    expect(watch.informer).toBeUndefined();
    await watch.start();
    expect(watch.synced).toBe(true);
    expect(watch.informer?.list().map((o) => o.metadata?.name)).toEqual(['a']);
    expect(listedFirst).toEqual([true]);
    await watch.stop();
  });

  it('after a failed watch stops serving, backs off, and a fresh informer lists again', async () => {
    const server = fakeServer([
      { items: [object('a', '1')], metadata: { resourceVersion: '1' } },
      { items: [object('a', '1'), object('b', '2')], metadata: { resourceVersion: '2' } },
    ]);
    const failures: number[] = [];
    const adds: string[] = [];
    const listedFirst: boolean[] = [];
    const watch = new KeptWatch({
      make: server.make,
      wire: (informer, current) => informer.on('add', (obj) => current() && adds.push(obj.metadata?.name ?? '')),
      onListed: (first) => listedFirst.push(first),
      onFailure: (_error, delayMs) => failures.push(delayMs),
    });
    await watch.start();
    server.breakWatch(new Error('connection reset'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(failures).toEqual([1000]);
    expect(watch.synced).toBe(false);
    expect(watch.informer).toBeUndefined();
    // The backoff is waited out by retryNow (the API server answers again).
    await watch.retryNow();
    expect(server.lists()).toBe(2);
    expect(watch.informer?.list().map((o) => o.metadata?.name)).toEqual(['a', 'b']);
    expect(adds).toEqual(['a', 'a', 'b']);
    expect(listedFirst).toEqual([true, true]);
    await watch.stop();
  });

  it('doubles the backoff while lists keep failing and resets it after a good list', async () => {
    const refused = new Error('connect ECONNREFUSED');
    const server = fakeServer([refused, refused, { items: [], metadata: { resourceVersion: '1' } }, refused]);
    const delays: number[] = [];
    const watch = new KeptWatch({ make: server.make, wire: () => undefined, onFailure: (_error, delayMs) => delays.push(delayMs) });
    await watch.start();
    await watch.retryNow();
    await watch.retryNow();
    expect(watch.synced).toBe(true);
    server.breakWatch(new Error('reset'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(delays).toEqual([1000, 2000, 1000]);
    await watch.stop();
  });

  it('retryNow lists anew even with nothing waiting (a watch opened while the server was starting may have missed an update); a stopped watch never restarts', async () => {
    const server = fakeServer([
      { items: [], metadata: { resourceVersion: '1' } },
      { items: [], metadata: { resourceVersion: '2' } },
    ]);
    const watch = new KeptWatch({ make: server.make, wire: () => undefined, onFailure: () => undefined });
    await watch.start();
    await watch.retryNow();
    expect(server.lists()).toBe(2);
    expect(watch.synced).toBe(true);
    await watch.stop();
    await watch.retryNow();
    await watch.start();
    expect(server.lists()).toBe(2);
  });
});
