import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { isReconciledAt, outcomeAtGeneration, type GenerationOutcome } from '../../src/core/release/reconciled.js';

type Condition = { type: string; status: 'True' | 'False' | 'Unknown'; observedGeneration?: number };

function release(generation: number, statusGeneration: number | undefined, conditions: Condition[]): HelmRelease {
  return {
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { name: 'a', namespace: 'ns', generation },
    spec: { chart: { repository: 'https://charts.example.org', name: 'a', version: '1.0.0' } },
    status: { observedGeneration: statusGeneration, conditions: conditions.map((c) => ({ reason: 'R', message: 'm', lastTransitionTime: '', ...c })) },
  };
}

describe('outcomeAtGeneration: has the controller finished with this generation?', () => {
  it.each<{ name: string; given: HelmRelease; want: GenerationOutcome }>([
    { name: 'Ready=True at the generation', given: release(3, 3, [{ type: 'Ready', status: 'True', observedGeneration: 3 }]), want: 'ready' },
    { name: 'Ready=False at the generation', given: release(3, 3, [{ type: 'Ready', status: 'False', observedGeneration: 3 }]), want: 'failed' },
    { name: 'Ready=Unknown', given: release(3, 3, [{ type: 'Ready', status: 'Unknown', observedGeneration: 3 }]), want: 'pending' },
    { name: 'no Ready condition', given: release(3, 3, []), want: 'pending' },
    { name: 'Ready speaks of an older generation', given: release(3, 3, [{ type: 'Ready', status: 'True', observedGeneration: 2 }]), want: 'pending' },
    { name: 'status speaks of an older generation', given: release(3, 2, [{ type: 'Ready', status: 'True', observedGeneration: 3 }]), want: 'pending' },
    {
      name: 'an operation is running',
      given: release(3, 3, [
        { type: 'Ready', status: 'True', observedGeneration: 3 },
        { type: 'Reconciling', status: 'True', observedGeneration: 3 },
      ]),
      want: 'pending',
    },
  ])('$name → $want', ({ given, want }) => {
    expect(outcomeAtGeneration(given)).toBe(want);
    expect(isReconciledAt(given)).toBe(want !== 'pending');
  });

  it('asks about the generation it is given, not only the current one', () => {
    const settled = release(4, 3, [{ type: 'Ready', status: 'True', observedGeneration: 3 }]);
    expect(outcomeAtGeneration(settled)).toBe('pending');
    expect(outcomeAtGeneration(settled, 3)).toBe('ready');
  });
});
