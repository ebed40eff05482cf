import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './schema-helpers.js';

/** spec.driftDetection of the HelmRelease API: which live objects are compared with what Helm applied, and which fields never drift. */

/** Kinds and names as the API server spells them; a target matches when every field it sets matches. */
export const DriftIgnoreTarget = Type.Object({
  kind: Type.Optional(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9]*$', maxLength: 63, description: 'Object kind, e.g. Deployment.' })),
  name: Type.Optional(Type.String({ pattern: '^[a-z0-9]([-a-z0-9.:]*[a-z0-9])?$', maxLength: 253, description: 'Object name.' })),
});

export const DriftIgnoreRule = Type.Object({
  paths: Type.Array(
    Type.String({
      pattern: '^(/([^/~]|~[01])*)*$',
      maxLength: 512,
      description: 'A JSON pointer (RFC 6901) into the object, e.g. /spec/replicas; "" ignores the whole object.',
    }),
    { minItems: 1, maxItems: 32 },
  ),
  target: Type.Optional(DriftIgnoreTarget),
});

export const DriftDetectionSpec = Type.Object(
  {
    mode: Type.Optional(
      StringEnum(['enabled', 'warn', 'disabled'] as const, {
        description:
          'enabled: correct drift and report it (DriftCorrected); warn: report it only (Drifted=True, DriftDetected); disabled (default): do not look.',
      }),
    ),
    ignore: Type.Optional(
      Type.Array(DriftIgnoreRule, { maxItems: 32, description: 'Fields that other controllers or people own: never drift, never corrected.' }),
    ),
  },
  { description: 'Compare the live objects with what Helm last applied, at every interval.' },
);

export type DriftDetectionSpec = Static<typeof DriftDetectionSpec>;
export type DriftIgnoreRule = Static<typeof DriftIgnoreRule>;
