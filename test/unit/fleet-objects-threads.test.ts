import { describe, expect, it } from 'vitest';
import { objectRowsForFleet } from '../../src/core/fleet/fleet-objects.js';
import { newQuery, signQuery, verifyQuery } from '../../src/core/fleet/fleet-query.js';
import { FLEET_SLACK_MESSAGES_CONFIGMAP, latestMessageOf, messageMapsFor, SLACK_MESSAGES_CONFIGMAP } from '../../src/core/links/slack-thread.js';
import { objectRow } from '../../src/core/release/object-rows.js';
import type { ObjectRow } from '../../src/core/release/object-rows.js';
import { readRelease, type Located } from '../../src/web/pages/reads.js';
import type { PagesDeps } from '../../src/web/pages/deps.js';
import { NOW as PAGE_NOW, release as releaseOf } from './web/builders.js';

const KEY = 'k'.repeat(40);
const NOW = Date.parse('2026-11-29T10:00:00Z');

describe('the `objects` question (another cluster’s release page)', () => {
  it('is answered for a well-named release only, signed for this cluster', () => {
    const query = newQuery('edge', { kind: 'objects', namespace: 'shop', name: 'web' }, NOW);
    expect(verifyQuery(signQuery(query, KEY), 'edge', KEY, NOW)).toEqual({ ok: true, query });
    expect(verifyQuery(signQuery(query, KEY), 'home', KEY, NOW)).toMatchObject({ ok: false, message: expect.stringContaining('signed for cluster "edge"') });
    for (const question of [
      { kind: 'objects', namespace: 'shop' },
      { kind: 'objects', namespace: 'Shop!', name: 'web' },
      { kind: 'objects', namespace: 'shop', name: 'x'.repeat(254) },
      { kind: 'objects', namespace: 'shop', name: 42 },
    ]) {
      const bad = signQuery({ ...query, question } as unknown as typeof query, KEY);
      expect(verifyQuery(bad, 'edge', KEY, NOW), JSON.stringify(question)).toEqual({ ok: false, message: 'not a signed query' });
    }
  });

  it('answers rows only: a Secret’s data or any other field of what was read never leaves', () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', namespace: 'shop' },
      data: { password: Buffer.from('hunter2-secret').toString('base64') },
      stringData: { token: 'hunter2-secret' },
    };
    const read = objectRow({ apiVersion: 'v1', kind: 'Secret', name: 'creds', namespace: 'shop' }, { kind: 'found', object: secret, clusterScoped: false });
    // A row that carries more than a row (an agent of another version, a hand-made answer): reduced to the five fields.
    const padded = { ...read, object: secret, data: secret.data };
    const rows = objectRowsForFleet([padded]);
    expect(rows).toEqual([{ kind: 'Secret', name: 'creds', namespace: 'shop', health: read.health, message: read.message }]);
    expect(JSON.stringify(rows)).not.toContain('hunter2');
    expect(JSON.stringify(rows)).not.toContain(secret.data.password);
  });

  it('drops malformed rows, cuts long messages and keeps at most the bound', () => {
    const row = { kind: 'ConfigMap', name: 'page', namespace: 'shop', health: 'current', message: 'ok' };
    expect(objectRowsForFleet('not rows')).toEqual([]);
    expect(objectRowsForFleet([null, 7, { ...row, health: 'great' }, { ...row, name: undefined }, { ...row, kind: 'k'.repeat(300) }, row])).toEqual([row]);
    expect(objectRowsForFleet([{ ...row, message: 'm'.repeat(5000) }])[0]!.message).toHaveLength(300);
    expect(objectRowsForFleet([{ ...row, message: undefined }])[0]!.message).toBe('');
    expect(objectRowsForFleet(Array.from({ length: 500 }, () => row))).toHaveLength(200);
    // A cluster-scoped object's row has an empty namespace.
    expect(objectRowsForFleet([{ ...row, kind: 'ClusterRole', namespace: '' }])).toHaveLength(1);
  });
});

describe('the Slack thread of a fleet’s release: the fleet map, matched by cluster', () => {
  const entry = (release: string, ts: string, updatedAt: string, cluster?: string) =>
    JSON.stringify({ release, channelId: 'C1', ts, updatedAt, operationId: `op-${ts}`, ...(cluster ? { cluster } : {}) });
  const data = {
    a: entry('default/unicorn', '1.000001', '2026-11-29T09:00:00Z', 'prod-eu'),
    // Newer, the same namespace/name, another cluster: not prod-eu's.
    b: entry('default/unicorn', '2.000002', '2026-11-29T09:30:00Z', 'staging'),
    // Newest, written before entries named their cluster: no cluster's.
    c: entry('default/unicorn', '3.000003', '2026-11-29T09:45:00Z'),
  };
  const release = { namespace: 'default', name: 'unicorn' };

  it('links the newest entry of that cluster, never a same-named release’s of another, nor an entry without a cluster', () => {
    expect(latestMessageOf(data, release, 'prod-eu')).toEqual({ channelId: 'C1', ts: '1.000001' });
    expect(latestMessageOf(data, release, 'staging')).toEqual({ channelId: 'C1', ts: '2.000002' });
    expect(latestMessageOf(data, release, 'edge')).toBeUndefined();
    // A namespace's own map (no cluster asked for): every entry of the release counts, as before.
    expect(latestMessageOf(data, release)).toEqual({ channelId: 'C1', ts: '3.000003' });
  });

  it('reads the release namespace’s map for the own cluster, then the fleet map; another cluster’s in the fleet map only', () => {
    const fleet = { namespace: 'helmcrew', own: 'home' };
    expect(messageMapsFor('shop', undefined)).toEqual([{ name: SLACK_MESSAGES_CONFIGMAP, namespace: 'shop' }]);
    expect(messageMapsFor('shop', 'edge')).toEqual([]);
    expect(messageMapsFor('shop', 'home', fleet)).toEqual([
      { name: SLACK_MESSAGES_CONFIGMAP, namespace: 'shop' },
      { name: FLEET_SLACK_MESSAGES_CONFIGMAP, namespace: 'helmcrew', cluster: 'home' },
    ]);
    expect(messageMapsFor('shop', 'edge', fleet)).toEqual([{ name: FLEET_SLACK_MESSAGES_CONFIGMAP, namespace: 'helmcrew', cluster: 'edge' }]);
  });
});

describe('another cluster’s release page: its objects as its agent answers them', () => {
  const withInventory = () => {
    const r = releaseOf('web', 'shop', { ready: 'True' });
    r.status = {
      ...r.status,
      inventory: {
        entries: [
          { id: 'shop_web_apps_Deployment', v: 'v1' },
          { id: 'shop_web-page__ConfigMap', v: 'v1' },
        ],
      },
    };
    return r;
  };
  const located = (releaseObjects?: (namespace: string, name: string) => Promise<ObjectRow[]>): Extract<Located, { ok: true }> => ({
    ok: true,
    own: false,
    cluster: 'edge',
    reads: {
      api: { list: async () => ({ items: [] }), get: async () => undefined, patchIntent: async () => withInventory() } as never,
      freezes: { list: async () => ({ items: [] }) },
      storage: { history: async () => ({ releases: [] }) },
      ...(releaseObjects ? { releaseObjects } : {}),
    },
  });
  const deps = {} as PagesDeps;
  const unread = [
    { kind: 'Deployment', name: 'web', namespace: 'shop', health: 'unknown', message: 'not read' },
    { kind: 'ConfigMap', name: 'web-page', namespace: 'shop', health: 'unknown', message: 'not read' },
  ];

  it('shows the rows the agent answered', async () => {
    const answered: ObjectRow[] = [{ kind: 'Deployment', name: 'web', namespace: 'shop', health: 'current', message: 'Available' }];
    const reading = await readRelease(
      deps,
      located(async () => answered),
      withInventory(),
      PAGE_NOW,
    );
    expect(reading.objects).toEqual(answered);
  });

  it('an older agent (it refuses the question), no answer in time, or no such part: the inventory listed unread, no error', async () => {
    for (const where of [located(() => Promise.reject(new Error('not a signed query'))), located(() => Promise.reject(new Error('timed out'))), located()]) {
      expect((await readRelease(deps, where, withInventory(), PAGE_NOW)).objects).toEqual(unread);
    }
  });
});
