import { describe, expect, it } from 'vitest';
import { chartCrds } from '../../src/controller/crds/crd-applier.js';
import { crdsPolicy, crdStep } from '../../src/controller/crds/crd-policy.js';

describe('install.crds / upgrade.crds', () => {
  it.each([
    { action: 'install', spec: {}, want: { policy: 'Create', skipCrdsFlag: false, apply: 'none' } },
    { action: 'install', spec: { install: { crds: 'Skip' } }, want: { policy: 'Skip', skipCrdsFlag: true, apply: 'none' } },
    { action: 'install', spec: { install: { crds: 'CreateReplace' } }, want: { policy: 'CreateReplace', skipCrdsFlag: false, apply: 'create-replace' } },
    { action: 'upgrade', spec: {}, want: { policy: 'Skip', skipCrdsFlag: false, apply: 'none' } },
    { action: 'upgrade', spec: { upgrade: { crds: 'Create' } }, want: { policy: 'Create', skipCrdsFlag: false, apply: 'create-missing' } },
    { action: 'upgrade', spec: { upgrade: { crds: 'CreateReplace' } }, want: { policy: 'CreateReplace', skipCrdsFlag: false, apply: 'create-replace' } },
    // The other action's policy does not leak.
    { action: 'upgrade', spec: { install: { crds: 'CreateReplace' } }, want: { policy: 'Skip', skipCrdsFlag: false, apply: 'none' } },
  ] as const)('$action with $spec', ({ action, spec, want }) => {
    const policy = crdsPolicy(action, spec);
    expect({ policy, ...crdStep(action, policy) }).toEqual(want);
  });
});

describe('chartCrds', () => {
  it('keeps the CRDs of `helm show crds` output and nothing else', () => {
    const text = `---
# Source: crds/a.yaml
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: gizmos.example.test }
spec: { group: example.test }
---
apiVersion: v1
kind: ConfigMap
metadata: { name: stray }
---
# only a comment
`;
    expect(chartCrds(text).map((o) => o.metadata.name)).toEqual(['gizmos.example.test']);
  });
});
