import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../../src/core/kube/api-error.js';
import { ListWatch, type Listed, type WatchEvent, type WatchFn } from '../../src/core/kube/watch/list-watch.js';
import { withoutBookkeeping } from '../../src/core/kube/watch/cache-trim.js';

// The state machine alone, driven by scripted watch streams (the real API server's 410 is in
// test/integration/slim-kube-client.test.ts).
const obj = (name: string, rv: string): KubernetesObject => ({ metadata: { name, namespace: 'ns', resourceVersion: rv } });

/** Each call of the watch plays the next script: events, then how the stream ends. */
function scripted(scripts: Array<{ events: WatchEvent[]; end: 'server-closed' | Error | 'hang' }>) {
  const calls: Array<string | undefined> = [];
  const watch: WatchFn = async (resourceVersion, onOpen, onEvent, signal) => {
    calls.push(resourceVersion);
    const script = scripts.shift() ?? { events: [], end: 'hang' as const };
    onOpen();
    for (const event of script.events) {
      if (signal.aborted) return;
      onEvent(event);
    }
    if (signal.aborted) return;
    if (script.end instanceof Error) throw script.end;
    if (script.end === 'hang') await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
  };
  return { watch, calls };
}

function record(informer: ListWatch<KubernetesObject>) {
  const seen: string[] = [];
  informer.on('add', (o) => seen.push(`add ${o.metadata!.name}@${o.metadata!.resourceVersion}`));
  informer.on('update', (o) => seen.push(`update ${o.metadata!.name}@${o.metadata!.resourceVersion}`));
  informer.on('delete', (o) => seen.push(`delete ${o.metadata!.name}`));
  informer.on('bookmark', () => seen.push('bookmark'));
  informer.on('synced', () => seen.push('synced'));
  informer.on('error', (e) => seen.push(`error ${(e as Error).message}`));
  return seen;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('ListWatch', () => {
  it('reports the list, then watch events; resumes a watch the server ended from the last resourceVersion (bookmarks too)', async () => {
    const { watch, calls } = scripted([
      {
        events: [
          { type: 'ADDED', object: obj('b', '11') },
          { type: 'MODIFIED', object: obj('a', '12') },
        ],
        end: 'server-closed',
      },
      {
        events: [
          { type: 'BOOKMARK', object: obj('', '20') },
          { type: 'DELETED', object: obj('b', '21') },
        ],
        end: 'hang',
      },
    ]);
    const informer = new ListWatch<KubernetesObject>(async () => ({ items: [obj('a', '5')], metadata: { resourceVersion: '10' } }), watch);
    const seen = record(informer);
    await informer.start();
    await settle();
    await informer.stop();
    expect(seen).toEqual(['add a@5', 'synced', 'add b@11', 'update a@12', 'bookmark', 'delete b']);
    expect(calls).toEqual(['10', '12']);
    expect(informer.list().map((o) => o.metadata!.name)).toEqual(['a']);
    expect(informer.get('a', 'ns')?.metadata?.resourceVersion).toBe('12');
  });

  it('410 in the stream relists and reports only the differences', async () => {
    const lists: Array<Listed<KubernetesObject>> = [
      { items: [obj('a', '5'), obj('b', '6'), obj('c', '7')], metadata: { resourceVersion: '10' } },
      { items: [obj('a', '5'), obj('b', '30'), obj('d', '31')], metadata: { resourceVersion: '40' } },
    ];
    const { watch, calls } = scripted([{ events: [{ type: 'ERROR', object: { code: 410, reason: 'Expired', message: 'too old' } }], end: 'server-closed' }]);
    const informer = new ListWatch<KubernetesObject>(async () => lists.shift()!, watch);
    const seen = record(informer);
    await informer.start();
    await settle();
    await informer.stop();
    expect(seen).toEqual(['add a@5', 'add b@6', 'add c@7', 'synced', 'update b@30', 'add d@31', 'delete c', 'synced']);
    expect(calls).toEqual(['10', '40']);
  });

  it.each([
    [
      'an ERROR event other than 410',
      { events: [{ type: 'ERROR' as const, object: { code: 500, message: 'storage is (re)initializing' } as never }], end: 'hang' as const },
      /storage is \(re\)initializing/,
    ],
    ['a broken connection', { events: [], end: new Error('socket hang up') }, /socket hang up/],
    ['a 403 on the watch', { events: [], end: new KubeApiError(403, { message: 'forbidden' }, 'GET', '/x') }, /forbidden/],
  ])('%s is reported once and ends the ListWatch (its owner replaces it)', async (_case, script, message) => {
    const { watch, calls } = scripted([script]);
    const informer = new ListWatch<KubernetesObject>(async () => ({ items: [], metadata: { resourceVersion: '1' } }), watch);
    const seen = record(informer);
    await informer.start();
    await settle();
    const errors = seen.filter((s) => s.startsWith('error'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(message);
    expect(calls).toHaveLength(1);
    await informer.stop();
  });

  it('a failing first list rejects start() (client-node resolved it, hiding the failure)', async () => {
    const informer = new ListWatch<KubernetesObject>(async () => Promise.reject(new KubeApiError(404, undefined, 'GET', '/apis/x')), scripted([]).watch);
    await expect(informer.start()).rejects.toBeInstanceOf(KubeApiError);
  });
});

describe('what the cache keeps', () => {
  it('the `keep` transform is applied to listed and watched objects alike; handlers and get() see the kept copy', async () => {
    const managed = (name: string, rv: string): KubernetesObject => ({
      metadata: {
        name,
        namespace: 'ns',
        resourceVersion: rv,
        managedFields: [{ manager: 'kubectl' }],
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"spec":{}}', keep: 'me' },
      },
    });
    const { watch } = scripted([{ events: [{ type: 'ADDED', object: managed('b', '11') }], end: 'hang' }]);
    const informer = new ListWatch<KubernetesObject>(
      async () => ({ items: [managed('a', '5')], metadata: { resourceVersion: '10' } }),
      watch,
      withoutBookkeeping,
    );
    const handed: KubernetesObject[] = [];
    informer.on('add', (o) => handed.push(o));
    await informer.start();
    await settle();
    await informer.stop();
    expect(handed.map((o) => o.metadata)).toEqual([
      { name: 'a', namespace: 'ns', resourceVersion: '5', annotations: { keep: 'me' } },
      { name: 'b', namespace: 'ns', resourceVersion: '11', annotations: { keep: 'me' } },
    ]);
    expect(informer.get('b', 'ns')?.metadata).not.toHaveProperty('managedFields');
  });
});
