import { describe, expect, it } from 'vitest';
import { ROLLBACK_REQUEST_ANNOTATION, ROLLBACK_TO_ANNOTATION, readRollbackRequest, readSuspension, SUSPENSION_ANNOTATION } from '../../src/api/annotations.js';
import { summarizeHistory, type StoredRelease } from '../../src/core/helm-storage/release-storage.js';
import { chooseRollbackRevision, pendingRollback } from '../../src/core/release/rollback-decision.js';

const stored = (revision: number, status: StoredRelease['status'], chartVersion = `${revision}.0.0`): StoredRelease => ({
  name: 'unicorn',
  namespace: 'web',
  revision,
  status,
  chartName: 'unicorn',
  chartVersion,
  config: {},
});

describe('chooseRollbackRevision', () => {
  it.each([
    {
      name: 'previous: the last superseded before the deployed one',
      history: [stored(3, 'deployed'), stored(2, 'superseded'), stored(1, 'superseded')],
      revision: undefined,
      want: { ok: true, to: 2 },
    },
    {
      name: 'previous skips failed attempts',
      history: [stored(4, 'deployed'), stored(3, 'failed'), stored(2, 'superseded')],
      revision: undefined,
      want: { ok: true, to: 2 },
    },
    {
      name: 'previous after a failed upgrade: the last good one, re-applied',
      history: [stored(4, 'failed'), stored(3, 'deployed'), stored(2, 'superseded')],
      revision: undefined,
      want: { ok: true, to: 3 },
    },
    { name: 'a named revision', history: [stored(3, 'deployed'), stored(2, 'superseded'), stored(1, 'superseded')], revision: 1, want: { ok: true, to: 1 } },
    {
      name: 'only one revision',
      history: [stored(1, 'deployed')],
      revision: undefined,
      want: { ok: false, message: expect.stringMatching(/first deployed revision/) },
    },
    {
      name: 'nothing deployed',
      history: [stored(1, 'failed')],
      revision: undefined,
      want: { ok: false, message: expect.stringMatching(/nothing to roll back from/) },
    },
    {
      name: 'revision not kept',
      history: [stored(3, 'deployed'), stored(2, 'superseded')],
      revision: 9,
      want: { ok: false, message: expect.stringMatching(/revision 9 is not in the release history \(revisions kept: 2, 3\)/) },
    },
    {
      name: 'an operation in progress',
      history: [stored(4, 'pending-upgrade'), stored(3, 'deployed')],
      revision: undefined,
      want: { ok: false, message: expect.stringMatching(/pending-upgrade/) },
    },
    {
      name: 'a malformed target',
      history: [stored(3, 'deployed'), stored(2, 'superseded')],
      revision: Number.NaN,
      want: { ok: false, message: expect.stringMatching(/not a revision number/) },
    },
  ])('$name', ({ history, revision, want }) => {
    const choice = chooseRollbackRevision(summarizeHistory(history), { id: 'r', revision });
    expect(choice.ok ? { ok: true, to: choice.to.revision } : choice).toMatchObject(want);
  });
});

describe('annotations', () => {
  it.each<{ name: string; given: Record<string, string>; want: object | undefined }>([
    { name: 'no request', given: {}, want: undefined },
    { name: 'previous by default', given: { [ROLLBACK_REQUEST_ANNOTATION]: 'a' }, want: { id: 'a' } },
    { name: 'a revision', given: { [ROLLBACK_REQUEST_ANNOTATION]: 'a', [ROLLBACK_TO_ANNOTATION]: '2' }, want: { id: 'a', revision: 2 } },
    {
      name: 'garbage target fails visibly',
      given: { [ROLLBACK_REQUEST_ANNOTATION]: 'a', [ROLLBACK_TO_ANNOTATION]: '2; rm' },
      want: { id: 'a', revision: Number.NaN },
    },
  ])('rollback request: $name', ({ given, want }) => {
    expect(readRollbackRequest(given)).toEqual(want);
  });

  it.each([
    { name: 'absent', given: undefined, want: undefined },
    { name: 'not JSON', given: '{oops', want: undefined },
    { name: 'missing who', given: JSON.stringify({ at: 'x' }), want: undefined },
    {
      name: 'full record, unknown keys dropped',
      given: JSON.stringify({ by: 'slack:U1', at: 't', reason: 'r', channel: 'C1', extra: 1 }),
      want: { by: 'slack:U1', at: 't', reason: 'r', channel: 'C1' },
    },
  ])('suspension record: $name', ({ given, want }) => {
    expect(readSuspension(given === undefined ? undefined : { [SUSPENSION_ANNOTATION]: given })).toEqual(want);
  });
});

describe('pendingRollback', () => {
  const withStatus = (rollback?: object) =>
    ({
      apiVersion: 'helmcrew.dev/v1alpha1',
      kind: 'HelmRelease',
      metadata: { name: 'u', namespace: 'w', annotations: { [ROLLBACK_REQUEST_ANNOTATION]: 'r1' } },
      spec: { chart: { repository: 'https://x.test', name: 'u' }, suspend: true },
      status: rollback ? { rollback } : undefined,
    }) as unknown as Parameters<typeof pendingRollback>[0];
  it.each([
    { name: 'never handled', given: undefined, want: { id: 'r1' } },
    { name: 'handled', given: { requestId: 'r1', succeeded: true, inProgress: false, toRevision: 2 }, want: undefined },
    { name: 'an older request handled', given: { requestId: 'r0', succeeded: true, toRevision: 2 }, want: { id: 'r1' } },
    {
      name: 'started but the controller died: same revision again, not "previous" anew',
      given: { requestId: 'r1', succeeded: false, inProgress: true, toRevision: 2 },
      want: { id: 'r1', revision: 2 },
    },
  ])('$name', ({ given, want }) => {
    expect(pendingRollback(withStatus(given))).toEqual(want);
  });
});
