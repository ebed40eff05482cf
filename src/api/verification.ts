import { Type, type Static } from '@sinclair/typebox';
import { celRules, LocalObjectName, StringEnum } from './schema-helpers.js';

/**
 * How an artifact is verified before anything runs it (docs/verification.md): Flux's `verify` shape
 * (OCIRepository, HelmChart), so a Flux user's YAML carries over. Used by spec.chart.verify (OCI charts:
 * cosign or notation; HTTP repository charts: helm provenance, `pgp`) and spec.imageUpdates[].verify.
 */

/** Keyless cosign: the signing certificate's OIDC issuer and subject must match these regular expressions. */
export const OIDCIdentityMatch = Type.Object({
  issuer: Type.String({ minLength: 1, maxLength: 1024, description: 'A regular expression the certificate’s OIDC issuer must match.' }),
  subject: Type.String({ minLength: 1, maxLength: 1024, description: 'A regular expression the certificate’s subject (identity) must match.' }),
});

export const VERIFICATION_PROVIDERS = ['cosign', 'notation', 'pgp'] as const;
export type VerificationProvider = (typeof VERIFICATION_PROVIDERS)[number];

export const ArtifactVerification = Type.Object(
  {
    provider: StringEnum(VERIFICATION_PROVIDERS, {
      description:
        'cosign (OCI: public keys under keys ending .pub, or keyless with matchOIDCIdentity), notation (OCI: trust policy and certificates), pgp (HTTP repository charts: the .prov helm writes, the keyring under pubring.gpg).',
    }),
    secretRef: Type.Optional(
      LocalObjectName({
        description:
          'A Secret in this namespace with the keys to trust: cosign `*.pub`; notation `trustpolicy.json` and `*.crt`/`*.pem`; pgp `pubring.gpg` (binary or armored). cosign without it verifies keyless.',
      }),
    ),
    matchOIDCIdentity: Type.Optional(
      Type.Array(OIDCIdentityMatch, { maxItems: 16, description: 'cosign keyless: the identities accepted (any one matches).' }),
    ),
  },
  {
    description: 'Verify the artifact’s signature before it is used: a failed check leaves the release on what it runs (Ready=False, VerificationFailed).',
    ...celRules(
      { rule: "self.provider == 'cosign' || has(self.secretRef)", message: 'notation and pgp need secretRef (the trust policy or keyring)' },
      { rule: "!has(self.matchOIDCIdentity) || self.provider == 'cosign'", message: 'matchOIDCIdentity is for cosign keyless verification' },
    ),
  },
);
export type ArtifactVerification = Static<typeof ArtifactVerification>;

/** spec.chart.git.verify: Flux GitRepository's — which commits must be signed, and by whose keys. */
export const GitVerification = Type.Object(
  {
    mode: Type.Optional(
      StringEnum(['HEAD', 'Tag', 'TagAndHEAD'] as const, {
        description: 'HEAD: the commit used; Tag: the annotated tag referenced; TagAndHEAD: both. Default: HEAD.',
      }),
    ),
    secretRef: LocalObjectName({
      description:
        'A Secret in this namespace with the public keys to trust: PGP (armored, any key name) and SSH (`authorized_keys`-style lines, keys ending .pub).',
    }),
  },
  { description: 'Refuse a commit (or tag) not signed by one of these keys.' },
);
export type GitVerification = Static<typeof GitVerification>;
