import { Type, type Static } from '@sinclair/typebox';

/**
 * Flux's spec.healthCheckExprs (helm-controller v1.5, fluxcd/pkg kustomize.CustomHealthCheck):
 * how to tell whether a custom resource of the release is ready, in CEL, for kinds helm's own
 * wait cannot judge. The API server cannot compile user CEL in a CRD rule: the controller does,
 * before helm runs, and names an expression that does not compile (Ready=False InvalidCELExpression).
 */

const Expression = (description: string) => Type.String({ minLength: 1, maxLength: 2048, description });

export const HealthCheckExpr = Type.Object(
  {
    apiVersion: Type.String({
      minLength: 1,
      maxLength: 316,
      pattern: '^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[a-z0-9]+$',
      description: 'The API version of the kind judged; only its group is matched (every served version).',
    }),
    kind: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z][A-Za-z0-9]*$',
        maxLength: 63,
        description: 'The kind judged. Default: every kind of the group (a kind given wins over the group).',
      }),
    ),
    current: Expression('CEL over the object (its fields are the variables: status, metadata, spec…): true when it is ready.'),
    inProgress: Type.Optional(Expression('CEL: true while it is still being worked on (checked first).')),
    failed: Type.Optional(Expression('CEL: true when it failed (checked after inProgress, before current): the helm action fails.')),
  },
  { description: "CEL health rules for one kind (or group) of the release's objects." },
);

export const HealthCheckExprs = Type.Array(HealthCheckExpr, {
  maxItems: 32,
  description:
    "Judge the release's objects of these kinds with CEL while an install or upgrade waits (wait not disabled), after helm's own wait: the action succeeds when every such object is current, fails when one is failed or the timeout passes. An object with status.observedGeneration behind metadata.generation is in progress. One entry per group and kind.",
});

export type HealthCheckExpr = Static<typeof HealthCheckExpr>;
