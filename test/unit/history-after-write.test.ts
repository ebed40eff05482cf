import { describe, expect, it } from 'vitest';
import { releaseWritten } from '../../src/core/helm-storage/release-written.js';
import { historyAfterWrite, storedRelease, summarizeHistory, type StoredRelease } from '../../src/core/helm-storage/release-storage.js';

const record = (revision: number, status: StoredRelease['status'], version = `${revision}.0.0`): StoredRelease => ({
  name: 'u',
  namespace: 'n',
  revision,
  status,
  chartName: 'unicorn',
  chartVersion: version,
  config: { v: version },
  labels: { owner: 'helm', status, 'helmcrew.io/owner-name': 'u' },
  valuesDigest: `d${revision}`,
});

/** What `helm upgrade --output json` prints, cut short: the chart's files and the manifest are in it too. */
const helmOutput = {
  name: 'u',
  namespace: 'n',
  version: 3,
  info: { status: 'deployed', last_deployed: '2026-11-23T12:00:00Z', description: 'Upgrade complete', first_deployed: '2026-11-20T00:00:00Z' },
  chart: {
    metadata: { name: 'unicorn', version: '3.0.0', appVersion: '3' },
    templates: [{ name: 'templates/deployment.yaml', data: 'YXBp' }],
    values: { color: 'pink' },
  },
  config: { color: 'green' },
  manifest: '---\nkind: Deployment\n',
};

describe('releaseWritten: the record helm printed', () => {
  it('keeps what decisions read and the manifest (status.inventory), not the chart files', () => {
    const written = releaseWritten(JSON.stringify(helmOutput));
    expect(written).toEqual({
      revision: 3,
      release: {
        name: 'u',
        namespace: 'n',
        version: 3,
        config: { color: 'green' },
        info: { status: 'deployed', last_deployed: '2026-11-23T12:00:00Z', description: 'Upgrade complete' },
        chart: { metadata: { name: 'unicorn', version: '3.0.0', appVersion: '3' } },
        manifest: '---\nkind: Deployment\n',
      },
    });
    expect(storedRelease(written.release!)).toMatchObject({
      revision: 3,
      status: 'deployed',
      chartVersion: '3.0.0',
      appVersion: '3',
      config: { color: 'green' },
      lastDeployed: '2026-11-23T12:00:00Z',
    });
  });
  it.each([
    ['{"name":"r","version":3,"info":{"status":"deployed"}}', { revision: 3 }],
    ['{"name":"r","version":1}', { revision: 1 }],
    ['{"name":"r"}', {}],
    ['{"version":"3"}', {}],
    ['{"version":0}', {}],
    ['{"version":2.5}', {}],
    ['[1,2]', {}],
    ['NAME: r\nREVISION: 3\n', {}],
    ['', {}],
    ['null', {}],
  ])('%j → %j', (stdout, expected) => {
    expect(releaseWritten(stdout)).toEqual(expected);
  });
  it('a record without config reads as no values', () => {
    expect(releaseWritten(JSON.stringify({ ...helmOutput, config: null })).release?.config).toEqual({});
  });
});

describe('historyAfterWrite: the records after a successful install or upgrade, without reading them', () => {
  it('an install onto nothing: the new record alone', () => {
    const after = historyAfterWrite(summarizeHistory([]), record(1, 'deployed'), 0)!;
    expect(after.releases.map((r) => [r.revision, r.status])).toEqual([[1, 'deployed']]);
    expect({ latest: after.latest?.revision, deployed: after.deployed?.revision }).toEqual({ latest: 1, deployed: 1 });
  });
  it('an upgrade: the deployed revision becomes superseded (label too), failed ones stay failed', () => {
    const before = summarizeHistory([record(3, 'failed'), record(2, 'deployed'), record(1, 'superseded')]);
    const after = historyAfterWrite(before, record(4, 'deployed'), 10)!;
    expect(after.releases.map((r) => [r.revision, r.status])).toEqual([
      [4, 'deployed'],
      [3, 'failed'],
      [2, 'superseded'],
      [1, 'superseded'],
    ]);
    expect(after.releases.find((r) => r.revision === 2)?.labels?.status).toBe('superseded');
    expect({ latest: after.latest?.revision, deployed: after.deployed?.revision }).toEqual({ latest: 4, deployed: 4 });
    // the history read before is not changed
    expect(before.deployed?.revision).toBe(2);
  });
  it.each([
    { name: 'someone else wrote a revision in between', before: [record(2, 'deployed')], written: record(4, 'deployed'), max: 10 },
    { name: 'the written record is not deployed', before: [record(1, 'deployed')], written: record(2, 'failed'), max: 10 },
    {
      name: 'no deployed revision to supersede (helm picks one)',
      before: [record(2, 'failed'), record(1, 'uninstalled')],
      written: record(3, 'deployed'),
      max: 10,
    },
    {
      name: 'the history limit pruned records',
      before: [record(3, 'deployed'), record(2, 'superseded'), record(1, 'superseded')],
      written: record(4, 'deployed'),
      max: 3,
    },
  ])('$name: read storage instead', ({ before, written, max }) => {
    expect(historyAfterWrite(summarizeHistory(before), written, max)).toBeUndefined();
  });
  it('one record short of the limit prunes nothing (helm keeps max - 1 before writing)', () => {
    const before = summarizeHistory([record(2, 'deployed'), record(1, 'superseded')]);
    expect(historyAfterWrite(before, record(3, 'deployed'), 3)?.releases).toHaveLength(3);
  });
});
