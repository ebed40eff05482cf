import { Type, type Static } from '@sinclair/typebox';
import { celRules, DNS_LABEL_PATTERN } from './schema-helpers.js';

/**
 * spec.dependsOn[]: another HelmRelease (Flux's shape), or — as in helm-controller PR #1480 —
 * any Kubernetes object (`apiVersion` + `kind`): a CRD Established, a Deployment Available.
 * `readyExpr` is Flux v1.4's CEL readiness rule (variables `self`: this HelmRelease, `dep`: the object).
 */
export const DependencyReference = Type.Object(
  {
    apiVersion: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 316,
        pattern: '^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[a-z0-9]+$',
        description: 'API version of the object waited for (apps/v1, apiextensions.k8s.io/v1). Default: helmcrew.dev/v1alpha1 (a HelmRelease).',
      }),
    ),
    kind: Type.Optional(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9]*$', maxLength: 63, description: 'Kind of the object waited for. Default: HelmRelease.' })),
    name: Type.String({
      pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$',
      maxLength: 253,
      description: 'Name of the object (a HelmRelease by default) this one waits for.',
    }),
    namespace: Type.Optional(
      Type.String({
        pattern: DNS_LABEL_PATTERN,
        maxLength: 63,
        description: "Its namespace. Default: this HelmRelease's (ignored for a cluster-scoped kind).",
      }),
    ),
    ready: Type.Optional(
      Type.Boolean({
        description:
          'Wait for the object to be ready (kstatus Current: a CRD Established, a Deployment Available; a HelmRelease Ready at its generation), not only to exist. Default: true for a HelmRelease, false for other kinds.',
      }),
    ),
    readyExpr: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description:
          'CEL that must be true for the dependency to count as ready, over `dep` (the object) and `self` (this HelmRelease); it replaces the built-in readiness check (as Flux without AdditiveCELDependencyCheck).',
      }),
    ),
  },
  {
    ...celRules(
      {
        rule: "!has(self.kind) || self.kind == 'HelmRelease' || has(self.apiVersion)",
        message: 'a dependency of another kind than HelmRelease needs its apiVersion',
        fieldPath: '.apiVersion',
      },
      {
        rule: '!has(self.apiVersion) || has(self.kind)',
        message: 'apiVersion needs kind',
        fieldPath: '.kind',
      },
    ),
  },
);

export type DependencyReference = Static<typeof DependencyReference>;
