import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './schema-helpers.js';

/** The HelmRelease's status: one TypeBox source for the TypeScript types and the CRD schema (crd.ts). */

export const Condition = Type.Object({
  type: Type.String({ maxLength: 316 }),
  status: StringEnum(['True', 'False', 'Unknown'] as const),
  reason: Type.String({ maxLength: 1024 }),
  message: Type.String({ maxLength: 32768 }),
  lastTransitionTime: Type.String({ format: 'date-time' }),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
});

export const HistoryEntry = Type.Object({
  revision: Type.Integer(),
  chartName: Type.String(),
  chartVersion: Type.String(),
  appVersion: Type.Optional(Type.String()),
  valuesDigest: Type.String(),
  status: Type.String(),
  deployedAt: Type.Optional(Type.String()),
});

export const Suspension = Type.Object(
  {
    by: Type.String({ maxLength: 200, description: 'Who suspended it: slack:<user id> or kube:<user>.' }),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
    at: Type.String({ maxLength: 40, description: 'When it was asked (ISO time).' }),
    channel: Type.Optional(Type.String({ maxLength: 100, description: 'The Slack channel it was asked from.' })),
  },
  { description: 'Why the release is suspended, when suspended from chat or the terminal.' },
);

export const RollbackRecord = Type.Object(
  {
    requestId: Type.String({ maxLength: 100, description: 'The request handled (helmcrew.dev/rollback-request).' }),
    succeeded: Type.Boolean(),
    inProgress: Type.Optional(Type.Boolean({ description: 'Written before helm starts: a controller that died mid-rollback retries to the same revision.' })),
    fromRevision: Type.Optional(Type.Integer()),
    toRevision: Type.Optional(Type.Integer({ description: 'The revision rolled back to.' })),
    revision: Type.Optional(Type.Integer({ description: 'The new revision helm wrote.' })),
    message: Type.String({ maxLength: 4096 }),
    at: Type.String({ maxLength: 40 }),
  },
  { description: 'The last rollback the controller did on request.' },
);

export const RemediationRecord = Type.Object(
  {
    action: StringEnum(['rollback', 'uninstall'] as const),
    succeeded: Type.Boolean(),
    /** Which failure of the spec it answered (installFailures/upgradeFailures at the time), so each failure is remediated once. */
    failure: Type.Integer({ minimum: 0 }),
    failedAction: StringEnum(['install', 'upgrade'] as const),
    generation: Type.Optional(Type.Integer()),
    revision: Type.Optional(Type.Integer({ description: 'The revision helm wrote (rollback).' })),
    message: Type.String({ maxLength: 4096 }),
    at: Type.String({ maxLength: 40 }),
  },
  { description: 'The last remediation the controller did by itself after a failure.' },
);

export const TestRecord = Type.Object(
  {
    requestId: Type.Optional(Type.String({ maxLength: 100, description: 'The last request handled (helmcrew.dev/test-request), when asked for.' })),
    revision: Type.Integer({ description: 'The release revision tested.' }),
    succeeded: Type.Boolean(),
    message: Type.String({ maxLength: 4096 }),
    at: Type.String({ maxLength: 40 }),
  },
  { description: 'The last `helm test` run.' },
);

export const DriftCorrectionRecord = Type.Object(
  {
    requestId: Type.Optional(Type.String({ maxLength: 100, description: 'The request handled (helmcrew.dev/correct-drift-request), when asked for.' })),
    revision: Type.Integer({ description: 'The release revision whose manifest was re-applied.' }),
    succeeded: Type.Boolean(),
    message: Type.String({ maxLength: 4096 }),
    at: Type.String({ maxLength: 40 }),
  },
  { description: 'The last drift correction: live objects put back to what Helm last applied.' },
);

export const HandoverRecord = Type.Object(
  {
    release: Type.String({ maxLength: 320, description: 'The Helm release taken over, <namespace>/<name>.' }),
    from: Type.String({ maxLength: 400, description: 'What installed it: Flux HelmRelease <namespace>/<name>.' }),
    revision: Type.Integer({ description: "The revision taken over; the upgrade that took it over wrote the next one, with helmcrew's owner labels." }),
    at: Type.String({ maxLength: 40 }),
  },
  { description: 'A live release this HelmRelease took over from Flux (helmcrew.dev/adopt-release), with no uninstall or reinstall.' },
);

export const Inventory = Type.Object(
  {
    entries: Type.Array(
      Type.Object({
        id: Type.String({ maxLength: 1024, description: '<namespace>_<name>_<group>_<kind>, as Flux writes it (namespace empty for cluster-scoped objects).' }),
        v: Type.String({ maxLength: 100, description: 'The API version, e.g. v1.' }),
      }),
      { maxItems: 5000 },
    ),
  },
  { description: "The objects the deployed revision applied (from its manifest), in Flux's shape." },
);

export const ApprovedOverrideStatus = Type.Object(
  {
    valuesPath: Type.String({ maxLength: 250, description: 'Where the value goes (image.tag), as spec.imageUpdates[].valuesPath.' }),
    value: Type.String({ maxLength: 1024 }),
    declared: Type.Optional(
      Type.String({
        maxLength: 4096,
        description: 'The declared value at valuesPath when approved, as JSON (absent: none); when the spec later says otherwise, the change gives way.',
      }),
    ),
    repository: Type.Optional(Type.String({ maxLength: 500, description: 'The image repository the value is a tag (or digest) of.' })),
    proposalId: Type.Optional(Type.String({ maxLength: 100, description: 'The proposal applied (core/proposals); absent for none.' })),
    proposedBy: Type.Optional(Type.String({ maxLength: 200, description: 'Who proposed it; absent: helmcrew (a new tag).' })),
    approvers: Type.Optional(
      Type.Array(Type.String({ maxLength: 200 }), { maxItems: 10, description: 'Who approved it; empty: it applied on its own (no spec.approval).' }),
    ),
    at: Type.String({ maxLength: 40, description: 'When it was applied (ISO time).' }),
  },
  { description: 'A value an approved (or automatic) change set over the declared values.' },
);

export const ApprovedChartStatus = Type.Object(
  {
    version: Type.String({
      maxLength: 100,
      description: 'The chart version in effect: helm installs this one while spec.chart.version says what it said at approval.',
    }),
    declared: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'spec.chart.version when approved (absent: none); when the spec later says otherwise, the approved version gives way.',
      }),
    ),
    proposalId: Type.String({ maxLength: 100, description: 'The proposal applied (core/proposals): a chart version or a promotion.' }),
    proposedBy: Type.Optional(Type.String({ maxLength: 200, description: 'Who proposed it; absent: helmcrew (a newer version in the range).' })),
    approvers: Type.Array(Type.String({ maxLength: 200 }), { maxItems: 10, description: 'Who approved it; empty: it applied on its own (no spec.approval).' }),
    at: Type.String({ maxLength: 40, description: 'When it was applied (ISO time).' }),
  },
  { description: 'A chart version an approved proposal put in effect over spec.chart.version.' },
);

export const VerificationRecord = Type.Object(
  {
    artifact: Type.String({ maxLength: 2300, description: 'What was verified: chart@version (pgp, cosign, notation) or repository@commit (git.verify).' }),
    verifiedBy: Type.String({
      maxLength: 1024,
      description:
        'Who signed it: the PGP key’s user id and key id, the SSH key’s comment and fingerprint, the cosign key’s name in the Secret (or the keyless identity), or the notation signing certificate’s subject.',
    }),
    provider: Type.String({ maxLength: 20, description: 'pgp (helm provenance), cosign or notation (an OCI chart) or git (a signed commit or tag).' }),
    digest: Type.Optional(
      Type.String({ maxLength: 200, description: 'cosign, notation: the OCI manifest digest that verified (a tag pushed again is a new check).' }),
    ),
    at: Type.String({ maxLength: 40, description: 'When the check passed (ISO time).' }),
  },
  { description: 'The last artifact whose signature was checked and passed (spec.chart.verify, spec.chart.git.verify).' },
);

export const HelmReleaseStatus = Type.Object({
  observedGeneration: Type.Optional(Type.Integer()),
  conditions: Type.Optional(Type.Array(Condition, { maxItems: 32 })),
  history: Type.Optional(Type.Array(HistoryEntry, { maxItems: 20, description: 'Newest first.' })),
  lastAttemptedGeneration: Type.Optional(Type.Integer()),
  lastAttemptedChartVersion: Type.Optional(Type.String()),
  lastAttemptedChartDigest: Type.Optional(
    Type.String({ description: 'oci:// charts: the manifest digest last attempted (a tag pushed again is a new attempt); git charts: git:<commit>.' }),
  ),
  lastAttemptedRevision: Type.Optional(Type.String({ description: "git charts: Chart.yaml's version plus the short commit last attempted (1.2.0+abc1234)." })),
  lastAttemptedValuesDigest: Type.Optional(Type.String()),
  lastAttemptedAction: Type.Optional(Type.String()),
  lastAttemptedAt: Type.Optional(Type.String()),
  lastAttemptFailed: Type.Optional(Type.Boolean()),
  lastReconciledAt: Type.Optional(
    Type.String({ description: 'When a check last changed this status. A check that finds nothing changed writes nothing, so this does not move at rest.' }),
  ),
  failures: Type.Optional(Type.Integer({ minimum: 0, description: 'Failed helm operations since the last success.' })),
  releaseName: Type.Optional(Type.String({ description: 'The release this object manages, as installed.' })),
  releaseNamespace: Type.Optional(Type.String()),
  suspension: Type.Optional(Suspension),
  rollback: Type.Optional(RollbackRecord),
  installFailures: Type.Optional(Type.Integer({ minimum: 0, description: 'Failed installs of the current spec; a new spec starts again at 0.' })),
  upgradeFailures: Type.Optional(Type.Integer({ minimum: 0, description: 'Failed upgrades of the current spec; a new spec starts again at 0.' })),
  lastRemediation: Type.Optional(RemediationRecord),
  lastTest: Type.Optional(TestRecord),
  lastDriftCorrection: Type.Optional(DriftCorrectionRecord),
  handover: Type.Optional(HandoverRecord),
  lastHandledReconcileAt: Type.Optional(Type.String({ maxLength: 100, description: 'The helmcrew.dev/requestedAt value last handled.' })),
  lastHandledForceAt: Type.Optional(
    Type.String({ maxLength: 100, description: 'The helmcrew.dev/forceAt value last handled (one forced install or upgrade).' }),
  ),
  lastHandledResetAt: Type.Optional(Type.String({ maxLength: 100, description: 'The helmcrew.dev/resetAt value last handled (failure counters reset).' })),
  inventory: Type.Optional(Inventory),
  approvedOverrides: Type.Optional(
    Type.Array(ApprovedOverrideStatus, {
      maxItems: 32,
      description: 'Approved changes over the declared values (spec.imageUpdates): kept here, where a GitOps tool owning the spec does not undo them.',
    }),
  ),
  approvedImages: Type.Optional(
    Type.String({ maxLength: 2048, description: 'The images approved changes put in effect (repository:tag), for `kubectl get hcr`.' }),
  ),
  approvedChart: Type.Optional(ApprovedChartStatus),
  verification: Type.Optional(VerificationRecord),
});

export type HelmReleaseStatus = Static<typeof HelmReleaseStatus>;
export type Condition = Static<typeof Condition>;
export type HistoryEntry = Static<typeof HistoryEntry>;
export type Suspension = Static<typeof Suspension>;
export type RollbackRecord = Static<typeof RollbackRecord>;
export type RemediationRecord = Static<typeof RemediationRecord>;
export type TestRecord = Static<typeof TestRecord>;
export type DriftCorrectionRecord = Static<typeof DriftCorrectionRecord>;
export type HandoverRecord = Static<typeof HandoverRecord>;
export type Inventory = Static<typeof Inventory>;
export type ApprovedOverrideStatus = Static<typeof ApprovedOverrideStatus>;
export type ApprovedChartStatus = Static<typeof ApprovedChartStatus>;
export type VerificationRecord = Static<typeof VerificationRecord>;
