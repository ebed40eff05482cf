import { Type, type Static } from '@sinclair/typebox';
import { LocalObjectName, StringEnum } from './schema-helpers.js';

/**
 * spec.decryption of the HelmRelease API: the shape of Flux kustomize-controller's
 * `spec.decryption` ({provider: sops, secretRef}), for SOPS-encrypted valuesFrom documents
 * (docs/api/helmrelease.md#sops-encrypted-values).
 */
export const Decryption = Type.Object(
  {
    provider: StringEnum(['sops'] as const, { description: 'sops: valuesFrom documents encrypted with SOPS (age keys).' }),
    secretRef: LocalObjectName({
      description:
        "A Secret in this HelmRelease's namespace, read as its identity, whose keys ending in .agekey hold age identities (AGE-SECRET-KEY-1…), as Flux's kustomize-controller reads them.",
    }),
  },
  {
    description:
      'Decrypt SOPS-encrypted valuesFrom documents (a ConfigMap or Secret key holding a SOPS YAML or JSON document) in memory with the keys of secretRef; their cleartext is kept out of status, Events, logs and previews like a Secret’s.',
  },
);

export type Decryption = Static<typeof Decryption>;
