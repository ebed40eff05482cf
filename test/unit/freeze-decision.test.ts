import { describe, expect, it } from 'vitest';
import { BREAK_GLASS_ANNOTATION } from '../../src/api/annotations.js';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { decideFreeze, helmActionOf } from '../../src/controller/reconcile/decide/freeze-decision.js';
import { frozenMessage, frozenRecorded, frozenStatus, unfrozenStatus } from '../../src/controller/status/freeze-status.js';

const release = (over: { frozen?: boolean; glass?: object; generation?: number } = {}): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: {
    name: 'a',
    namespace: 'web',
    generation: over.generation ?? 2,
    ...(over.glass ? { annotations: { [BREAK_GLASS_ANNOTATION]: JSON.stringify(over.glass) } } : {}),
  },
  spec: { chart: { repository: 'https://x.test', name: 'unicorn', version: '1.0.0' } },
  ...(over.frozen
    ? { status: { observedGeneration: 2, conditions: [{ type: 'Frozen', status: 'True', reason: 'Frozen', message: 'm', lastTransitionTime: 't' }] } }
    : {}),
});
const web1 = { name: 'web-1', reason: 'INC' };
const all1 = { name: 'all-1', reason: 'sale' };
const glass = (freezes: string[], generation = 2) => ({ freezes, generation, by: 'slack:U1', approvedBy: 'slack:U2', at: 't' });

describe('helmActionOf: every decided action says whether it runs helm', () => {
  it.each([
    ['install', 'install'],
    ['reinstall', 'install'],
    ['upgrade', 'upgrade'],
    ['test', 'test'],
    ['rollback', 'rollback'],
    ['uninstall', 'uninstall'],
    ['remediate-rollback', 'remediation'],
    ['remediate-uninstall', 'remediation'],
    ['unlock', undefined],
    ['report-ready', undefined],
    ['record-suspension', undefined],
    ['remove-finalizer', undefined],
  ] as const)('%s → %s', (action, want) => expect(helmActionOf(action)).toBe(want));
});

describe('decideFreeze', () => {
  it.each([
    { name: 'nothing holds, nothing recorded: go', given: release(), action: 'upgrade' as const, holding: [], want: { kind: 'go' } },
    { name: 'no helm action, nothing recorded: go', given: release(), action: undefined, holding: [], want: { kind: 'go' } },
    { name: 'held for the first time', given: release(), action: 'install' as const, holding: [web1], want: { kind: 'hold', action: 'install', first: true } },
    {
      name: 'held again: not the first time',
      given: release({ frozen: true }),
      action: 'upgrade' as const,
      holding: [web1],
      want: { kind: 'hold', first: false },
    },
    { name: 'recorded, nothing holds now: release', given: release({ frozen: true }), action: 'upgrade' as const, holding: [], want: { kind: 'release' } },
    { name: 'recorded, no helm action any more: release', given: release({ frozen: true }), action: undefined, holding: [], want: { kind: 'release' } },
    {
      name: 'freezes not listed yet: wait, never act blind',
      given: release(),
      action: 'upgrade' as const,
      holding: undefined,
      want: { kind: 'wait-for-freezes' },
    },
    {
      name: 'break-glass for this generation through every holding freeze',
      given: release({ glass: glass(['web-1', 'all-1']) }),
      action: 'upgrade' as const,
      holding: [all1, web1],
      want: { kind: 'break-glass', by: 'slack:U1', approvedBy: 'slack:U2' },
    },
    {
      name: 'break-glass that misses a freeze holds',
      given: release({ glass: glass(['web-1']) }),
      action: 'upgrade' as const,
      holding: [all1, web1],
      want: { kind: 'hold' },
    },
    {
      name: 'break-glass of an older generation holds',
      given: release({ glass: glass(['web-1'], 1) }),
      action: 'upgrade' as const,
      holding: [web1],
      want: { kind: 'hold' },
    },
  ])('$name', ({ given, action, holding, want }) => {
    expect(decideFreeze(given, action, holding)).toMatchObject(want);
  });
});

describe('freeze status', () => {
  const now = new Date('2026-11-25T10:00:00Z');
  it('Frozen=True and Ready=False name the freezes; written once per message and generation', () => {
    const message = frozenMessage('upgrade', [web1]);
    expect(message).toBe('The upgrade is held by freeze web-1 (INC); the spec is kept and applied when no freeze holds it');
    const status = frozenStatus(release(), message, now);
    expect(status.conditions).toEqual([
      expect.objectContaining({ type: 'Frozen', status: 'True', reason: 'Frozen', message, observedGeneration: 2 }),
      expect.objectContaining({ type: 'Ready', status: 'False', reason: 'Frozen', message }),
    ]);
    const written = { ...release(), status };
    expect(frozenRecorded(written, message)).toBe(true);
    expect(frozenRecorded(written, frozenMessage('upgrade', [web1, all1]))).toBe(false);
    expect(frozenRecorded({ ...written, metadata: { ...written.metadata, generation: 3 } }, message)).toBe(false);
    // Released: Ready no longer says Frozen (a waiter must not read it as the outcome), and says the pass goes on.
    expect(unfrozenStatus(written, now).conditions).toEqual([
      expect.objectContaining({ type: 'Ready', status: 'Unknown', reason: 'Progressing', message: 'No freeze holds the release any more; applying the spec' }),
    ]);
  });
});
