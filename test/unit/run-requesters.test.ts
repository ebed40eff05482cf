import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { createLogger } from '../../src/core/log.js';
import { RequesterStampingSink } from '../../src/core/events/requester-sink.js';
import { RunRequesters, runLookupKey, runStage } from '../../src/core/events/run-requesters.js';
import type { RequestKey, RequestRecord } from '../../src/core/requests/requester-ledger.js';

const log = createLogger('unit', 'silent');

describe('runStage and runLookupKey', () => {
  it.each([
    ['InstallStarted', 'start'],
    ['UpgradeStarted', 'start'],
    ['InstallSucceeded', 'end'],
    ['InstallFailed', 'end'],
    ['UpgradeSucceeded', 'end'],
    ['UpgradeFailed', 'end'],
    ['RollbackSucceeded', undefined],
    ['Resumed', undefined],
  ] as const)('%s → %s', (event, stage) => {
    expect(runStage(event)).toBe(stage);
  });

  it('names the object and every key looked up', () => {
    expect(runLookupKey('uid-1', [{ generation: 4 }])).toBe('uid-1 gen:4');
    expect(runLookupKey('uid-1', [{ requestId: 'rb-1' }])).toBe('uid-1 id:rb-1');
    expect(runLookupKey('uid-2', [{ generation: 4 }])).not.toBe(runLookupKey('uid-1', [{ generation: 4 }]));
  });
});

describe('RunRequesters', () => {
  it('gives a kept answer once, nobody included, and forgets the oldest beyond its bound', () => {
    const runs = new RunRequesters(2);
    runs.keep('a', { id: 'slack:U1' });
    runs.keep('b', undefined);
    expect(runs.take('a')).toEqual({ requester: { id: 'slack:U1' } });
    expect(runs.take('a')).toBeUndefined();
    expect(runs.take('b')).toEqual({ requester: undefined });
    runs.keep('c', undefined);
    runs.keep('d', undefined);
    runs.keep('e', undefined);
    expect(runs.take('c')).toBeUndefined();
    expect(runs.take('d')).toEqual({ requester: undefined });
  });
});

describe('RequesterStampingSink over a run', () => {
  const release = { metadata: { name: 'u', namespace: 'web', uid: 'uid-1', generation: 4 } } as HelmRelease;
  const ana: RequestRecord = { requester: { id: 'slack:UANA', name: 'ana' }, verb: 'upgrade', at: 't' };

  function setUp(find: (keys: readonly RequestKey[]) => Promise<RequestRecord | undefined>, maxWaitMs = 250) {
    const asked: string[] = [];
    const stamped: [string, unknown][] = [];
    const ledger = { find: (_uid: string, keys: readonly RequestKey[]) => (asked.push(JSON.stringify(keys)), find(keys)) };
    const next = { record: async (_r: HelmRelease, event: string, _m: string, d?: { requester?: unknown }) => void stamped.push([event, d?.requester]) };
    return { asked, stamped, sink: new RequesterStampingSink(ledger, next, log, maxWaitMs) };
  }

  it('a spec change nobody asked for: one look-up for the run, not one per event', async () => {
    const { asked, stamped, sink } = setUp(async () => undefined);
    await sink.record(release, 'UpgradeStarted', 'm');
    await sink.record(release, 'UpgradeSucceeded', 'm');
    expect(asked).toEqual(['[{"generation":4}]']);
    expect(stamped).toEqual([
      ['UpgradeStarted', undefined],
      ['UpgradeSucceeded', undefined],
    ]);
  });

  it('a requester recorded before the run starts names both its start and its end', async () => {
    const { asked, stamped, sink } = setUp(async () => ana);
    await sink.record(release, 'InstallStarted', 'm');
    await sink.record(release, 'InstallFailed', 'm');
    expect(asked).toHaveLength(1);
    expect(stamped).toEqual([
      ['InstallStarted', ana.requester],
      ['InstallFailed', ana.requester],
    ]);
  });

  it('each start asks again (a retried generation), and an end without its start asks for itself', async () => {
    const stored: { record?: RequestRecord } = {};
    const { asked, stamped, sink } = setUp(async () => stored.record);
    await sink.record(release, 'UpgradeSucceeded', 'm');
    await sink.record(release, 'UpgradeStarted', 'm');
    stored.record = ana;
    await sink.record(release, 'UpgradeFailed', 'm');
    await sink.record(release, 'UpgradeStarted', 'm');
    await sink.record(release, 'UpgradeSucceeded', 'm');
    expect(asked).toHaveLength(3);
    expect(stamped.map(([, r]) => r)).toEqual([undefined, undefined, undefined, ana.requester, ana.requester]);
  });

  it('a start whose look-up did not answer keeps nothing: the end asks again', async () => {
    let slow = true;
    const { asked, stamped, sink } = setUp(() => (slow ? new Promise(() => undefined) : Promise.resolve(ana)), 10);
    await sink.record(release, 'UpgradeStarted', 'm');
    slow = false;
    await sink.record(release, 'UpgradeSucceeded', 'm');
    expect(asked).toHaveLength(2);
    expect(stamped.map(([, r]) => r)).toEqual([undefined, ana.requester]);
  });

  it('different generations and objects are different runs', async () => {
    const { asked, sink } = setUp(async () => undefined);
    await sink.record(release, 'UpgradeStarted', 'm');
    await sink.record({ metadata: { ...release.metadata, generation: 5 } } as HelmRelease, 'UpgradeSucceeded', 'm');
    await sink.record({ metadata: { ...release.metadata, uid: 'uid-2' } } as HelmRelease, 'UpgradeSucceeded', 'm');
    expect(asked).toHaveLength(3);
  });
});
