import { describe, expect, it } from 'vitest';
import { encodeReleasePayload, type HelmReleasePayload } from '../../../src/core/helm-storage/release-record.js';
import { MAX_NOTES_CHARS } from '../../../src/core/helm-storage/revision-summary.js';
import { keptEvent, withEvent, MAX_EVENTS, type KeptRecordOfEvent } from '../../../src/web/live/event-watch.js';
import { MAX_REVISIONS, RecordIndex } from '../../../src/web/live/record-index.js';
import { keptRecord, type KeptRecord } from '../../../src/web/live/kept-record.js';

/** What the web's record and Event watches keep of each object: summaries, bounded, never values or manifests. */

const payload = (revision: number, notes?: string): HelmReleasePayload => ({
  name: 'unicorn',
  namespace: 'web',
  version: revision,
  config: { password: 'hunter22' },
  manifest: 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: unicorn }\ndata: { secret: s3cr3t }\n',
  info: { status: 'deployed', last_deployed: '2026-11-28T10:00:00Z', description: 'Upgrade complete', ...(notes ? { notes } : {}) },
  chart: {
    metadata: { name: 'unicorn', version: '2.0.0', appVersion: '2.0' },
    templates: [{ name: 'big', data: 'x'.repeat(10_000) }],
  } as HelmReleasePayload['chart'],
});

const secret = (
  revision: number,
  data: string | undefined,
  labels: Record<string, string> = { owner: 'helm', name: 'unicorn', status: 'deployed', version: String(revision) },
) => ({
  metadata: { name: `sh.helm.release.v1.unicorn.v${revision}`, namespace: 'web', resourceVersion: '7', labels },
  type: 'helm.sh/release.v1',
  ...(data ? { data: { release: data } } : {}),
});

describe('keptRecord', () => {
  it('decodes a record once into its summary and NOTES; the values, manifest and chart are dropped', () => {
    const kept = keptRecord(secret(3, encodeReleasePayload(payload(3, 'Visit http://unicorn.local'))));
    expect(kept.release).toBe('unicorn');
    expect(kept.summary).toEqual({
      name: 'unicorn',
      namespace: 'web',
      revision: 3,
      status: 'deployed',
      chartName: 'unicorn',
      chartVersion: '2.0.0',
      appVersion: '2.0',
      config: {},
      lastDeployed: '2026-11-28T10:00:00Z',
      description: 'Upgrade complete',
    });
    expect(kept.notes).toBe('Visit http://unicorn.local');
    const all = JSON.stringify(kept);
    for (const gone of ['hunter22', 's3cr3t', 'xxxxxxxx']) expect(all).not.toContain(gone);
    // A listed page's items are kept already: keeping again changes nothing.
    expect(keptRecord(kept)).toBe(kept);
  });

  it('bounds NOTES', () => {
    const kept = keptRecord(secret(1, encodeReleasePayload(payload(1, 'n'.repeat(MAX_NOTES_CHARS + 50)))));
    expect(kept.notes).toHaveLength(MAX_NOTES_CHARS + '\n… (50 more characters left out)'.length);
  });

  it('a record that cannot be decoded still shows its revision and status, from helm’s labels, and why', () => {
    const kept = keptRecord(secret(4, Buffer.from('not a record').toString('base64'), { owner: 'helm', name: 'unicorn', status: 'failed', version: '4' }));
    expect(kept.summary).toMatchObject({ revision: 4, status: 'failed', chartName: '', config: {} });
    expect(kept.summary.description).toMatch(/web\/sh\.helm\.release\.v1\.unicorn\.v4 is not valid JSON/);
    expect(keptRecord(secret(5, undefined)).summary.description).toMatch(/has no release data/);
  });

  it('a record listed as metadata only is pending: its revision and status from helm’s labels, read whole later', () => {
    const listed = { kind: 'PartialObjectMetadata', metadata: { ...secret(2, undefined).metadata } };
    const kept = keptRecord(listed);
    expect(kept).toMatchObject({ release: 'unicorn', pending: true, summary: { revision: 2, status: 'deployed', chartName: '' } });
    const index = new RecordIndex();
    index.put(kept);
    index.put(keptRecord(secret(1, encodeReleasePayload(payload(1)))));
    expect(index.pending('web', 'unicorn').map((r) => r.metadata.name)).toEqual(['sh.helm.release.v1.unicorn.v2']);
    expect(index.pending('web', 'other')).toEqual([]);
  });

  it('a Secret without helm’s name label belongs to no release', () => {
    expect(keptRecord(secret(1, encodeReleasePayload(payload(1)), { owner: 'helm' })).release).toBe('');
  });
});

describe('the Events kept per release', () => {
  const event = (name: string, at: string): KeptRecordOfEvent => ({ name, at, reason: 'UpgradeSucceeded', message: name });

  it('keptEvent: the release it is about, its time, a bounded message', () => {
    const kept = keptEvent({
      metadata: { name: 'unicorn.1', namespace: 'web', resourceVersion: '9' },
      involvedObject: { name: 'unicorn' },
      reason: 'ActionRequested',
      message: 'm'.repeat(2000),
      type: 'Normal',
      firstTimestamp: '2026-11-28T09:00:00Z',
      lastTimestamp: '2026-11-28T10:00:00Z',
    } as never);
    expect(kept.release).toBe('unicorn');
    expect(kept.event).toMatchObject({ name: 'unicorn.1', reason: 'ActionRequested', at: '2026-11-28T10:00:00Z', type: 'Normal' });
    expect(kept.event?.message).toHaveLength(500);
  });

  it('withEvent: one entry per Event, newest first, at most MAX_EVENTS', () => {
    let list: KeptRecordOfEvent[] = [];
    for (let i = 0; i < MAX_EVENTS + 5; i++) list = withEvent(list, event(`e${i}`, `2026-11-28T10:${String(i).padStart(2, '0')}:00Z`));
    expect(list).toHaveLength(MAX_EVENTS);
    expect(list[0]!.name).toBe(`e${MAX_EVENTS + 4}`);
    expect(list.at(-1)!.name).toBe('e5');
    // The same Event again (its count went up): in its new place, not twice.
    list = withEvent(list, event('e10', '2026-11-28T11:00:00Z'));
    expect(list.filter((e) => e.name === 'e10')).toHaveLength(1);
    expect(list[0]!.name).toBe('e10');
  });
});

describe('RecordIndex', () => {
  const kept = (revision: number, status: string, notes?: string, release = 'unicorn'): KeptRecord =>
    keptRecord(
      secret(revision, encodeReleasePayload({ ...payload(revision, notes), info: { status, ...(notes ? { notes } : {}) } }), {
        owner: 'helm',
        name: release,
        status,
        version: String(revision),
      }),
    );

  it('a history of summaries, newest first, the deployed one named; the NOTES of the newest revision only, taken out of the cached record', () => {
    const index = new RecordIndex();
    const [one, two, three] = [kept(1, 'superseded', 'old notes'), kept(3, 'failed', 'newest notes'), kept(2, 'deployed', 'middle notes')];
    for (const r of [one, two, three]) index.put(r);
    const history = index.history('web', 'unicorn');
    expect(history.releases.map((r) => r.revision)).toEqual([3, 2, 1]);
    expect(history.deployed?.revision).toBe(2);
    expect(history.latest?.revision).toBe(3);
    expect(index.notes('web', 'unicorn')).toEqual({ revision: 3, notes: 'newest notes' });
    expect([one, two, three].map((r) => r.notes)).toEqual([undefined, undefined, undefined]);
    expect(index.names('web', 'unicorn').sort()).toEqual(['sh.helm.release.v1.unicorn.v1', 'sh.helm.release.v1.unicorn.v2', 'sh.helm.release.v1.unicorn.v3']);
    expect(index.history('web', 'other').releases).toEqual([]);
    expect(index.notes('web', 'other')).toEqual({});
  });

  it('a newer revision without NOTES replaces the older NOTES; deleting the newest drops them; deleting the last forgets the release', () => {
    const index = new RecordIndex();
    const first = kept(1, 'deployed', 'first notes');
    index.put(first);
    const second = kept(2, 'deployed');
    index.put(second);
    expect(index.notes('web', 'unicorn')).toEqual({ revision: 2 });
    index.drop(second);
    expect(index.notes('web', 'unicorn')).toEqual({});
    expect(index.history('web', 'unicorn').releases.map((r) => r.revision)).toEqual([1]);
    index.drop(first);
    expect(index.names('web', 'unicorn')).toEqual([]);
  });

  it('rebuilt after a list (unchanged records come back without their NOTES): the newest NOTES are kept', () => {
    const index = new RecordIndex();
    const records = [kept(1, 'superseded', 'old'), kept(2, 'deployed', 'current')];
    for (const r of records) index.put(r);
    index.rebuild([...records, kept(1, 'deployed', 'x', 'another')]);
    expect(index.notes('web', 'unicorn')).toEqual({ revision: 2, notes: 'current' });
    expect(index.notes('web', 'another')).toEqual({ revision: 1, notes: 'x' });
  });

  it(`answers at most ${MAX_REVISIONS} revisions; a record of no release is not indexed`, () => {
    const index = new RecordIndex();
    for (let r = 1; r <= MAX_REVISIONS + 5; r++) index.put(kept(r, r === MAX_REVISIONS + 5 ? 'deployed' : 'superseded'));
    const history = index.history('web', 'unicorn');
    expect(history.releases).toHaveLength(MAX_REVISIONS);
    expect(history.releases[0]!.revision).toBe(MAX_REVISIONS + 5);
    index.put(keptRecord(secret(1, encodeReleasePayload(payload(1)), { owner: 'helm' })));
    expect(index.names('web', '')).toEqual([]);
  });
});
