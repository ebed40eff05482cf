/**
 * One vocabulary for condition types, reasons, Kubernetes Event reasons, notifications and
 * metric labels. Everything that names "what happened" imports it from here.
 */

export const API_GROUP = 'helmcrew.dev';
export const API_VERSION = 'v1alpha1';
export const HELMRELEASE_KIND = 'HelmRelease';
export const HELMRELEASE_PLURAL = 'helmreleases';
export const TEAM_KIND = 'Team';
export const TEAM_PLURAL = 'teams';
export const FREEZE_KIND = 'Freeze';
export const FREEZE_PLURAL = 'freezes';
export const FINALIZER = 'helmcrew.dev/finalizer';
export const FIELD_MANAGER = 'helmcrew-controller';

export const ConditionType = {
  Ready: 'Ready',
  Reconciling: 'Reconciling',
  Stalled: 'Stalled',
  Released: 'Released',
  /** True while spec.suspend holds the release (abnormal-true, like Stalled); removed on resume. */
  Suspended: 'Suspended',
  /** True after the controller rolled back or uninstalled a failed release by itself; False when that failed. */
  Remediated: 'Remediated',
  /** The result of the last `helm test` (test.enable). */
  TestSuccess: 'TestSuccess',
  /** True while an active Freeze holds a helm action this release needs (abnormal-true); removed when it goes on. */
  Frozen: 'Frozen',
  /** True while live objects differ from what Helm last applied (driftDetection.mode warn); removed when they match again. */
  Drifted: 'Drifted',
} as const;
export type ConditionType = (typeof ConditionType)[keyof typeof ConditionType];

/** Event names of DESIGN.md; also used as condition reasons. */
export const ReleaseEvent = {
  /** An install began (helm is about to run): the first state of an operation's message. */
  InstallStarted: 'InstallStarted',
  /** An upgrade began (helm is about to run). */
  UpgradeStarted: 'UpgradeStarted',
  InstallSucceeded: 'InstallSucceeded',
  InstallFailed: 'InstallFailed',
  UpgradeSucceeded: 'UpgradeSucceeded',
  UpgradeFailed: 'UpgradeFailed',
  TestSucceeded: 'TestSucceeded',
  TestFailed: 'TestFailed',
  RollbackSucceeded: 'RollbackSucceeded',
  RollbackFailed: 'RollbackFailed',
  UninstallSucceeded: 'UninstallSucceeded',
  UninstallFailed: 'UninstallFailed',
  DriftDetected: 'DriftDetected',
  DriftCorrected: 'DriftCorrected',
  DependencyNotReady: 'DependencyNotReady',
  ChartPullFailed: 'ChartPullFailed',
  ValuesInvalid: 'ValuesInvalid',
  Stalled: 'Stalled',
  Suspended: 'Suspended',
  Resumed: 'Resumed',
  /** A release left pending-* by a helm process that died was marked failed so work can go on. */
  ReleaseUnlocked: 'ReleaseUnlocked',
  /** Audit: a person asked for a change from Slack or the terminal (who, what, why). */
  ActionRequested: 'ActionRequested',
  /** Audit: a person was refused (not authorized, approval missing); nothing changed. */
  ActionRefused: 'ActionRefused',
  /** The Helm release belongs to another HelmRelease (or was not installed by helmcrew): left alone. */
  ReleaseOwnedByOther: 'ReleaseOwnedByOther',
  /** A release Flux installed is taken over (helmcrew.dev/adopt-release): its next upgrade is helmcrew's. */
  ReleaseAdopted: 'ReleaseAdopted',
  /** An active Freeze holds the helm action this release needs; the spec is kept and applied when the freeze ends. */
  Frozen: 'Frozen',
  /** The operator's lock-down forbids reaching another namespace than the HelmRelease's own (targetNamespace, dependsOn). */
  TargetNamespaceRefused: 'TargetNamespaceRefused',
  /** The identity the HelmRelease acts as may not read its release records. */
  AccessDenied: 'AccessDenied',
  /**
   * The identity the HelmRelease acts as was refused by the API server (helm may not create or
   * change an object of its chart), or helmcrew could not set up its managed ServiceAccount.
   */
  IdentityForbidden: 'IdentityForbidden',
  /** spec.kubeConfig: the Secret, its key or the kubeconfig in it cannot be used. */
  KubeConfigInvalid: 'KubeConfigInvalid',
  /** spec.kubeConfig: the kubeconfig would run a program or read a file of the controller's, and the operator does not allow it. */
  KubeConfigRefused: 'KubeConfigRefused',
  /** spec.kubeConfig: the target cluster's API server did not answer; tried again later. */
  TargetUnreachable: 'TargetUnreachable',
  /** A reconcile failed in a way nothing else names (a bug, an API error): retried with backoff. */
  ReconcileError: 'ReconcileError',
  /** A Helm release record is corrupt or larger than the controller will decode. */
  ReleaseRecordInvalid: 'ReleaseRecordInvalid',
  /** The chart repository's host is not allowed (operator allow-list, link-local addresses). */
  RepositoryNotAllowed: 'RepositoryNotAllowed',
  /** A CEL expression of the spec (healthCheckExprs, dependsOn[].readyExpr) does not compile: the message names the field (Flux's reason). */
  InvalidCELExpression: 'InvalidCELExpression',
  /** A change waits for approvals in chat (a new image tag, a newer chart version, a promotion): details.proposalId names it (core/proposals). */
  ProposalOpened: 'ProposalOpened',
  /** A newer proposal on the same subject replaced an open one; details.proposalId is the old one, the message names the new. */
  ProposalSuperseded: 'ProposalSuperseded',
  /** An open proposal passed its expiry with too few approvals; nothing was changed. */
  ProposalExpired: 'ProposalExpired',
  /** An approved (or, without spec.approval, automatic) change was written to status.approvedOverrides; the upgrade follows. */
  ProposalApplied: 'ProposalApplied',
  /** The chart (spec.chart.verify: pgp, cosign) or the commit (spec.chart.git.verify) failed its signature check (unsigned, another key, a bad key Secret): nothing of it is rendered or installed. */
  VerificationFailed: 'VerificationFailed',
} as const;
export type ReleaseEvent = (typeof ReleaseEvent)[keyof typeof ReleaseEvent];

/** Reasons that are states rather than happenings. */
export const StateReason = {
  InSync: 'InSync',
  Progressing: 'Progressing',
  Installing: 'Installing',
  Upgrading: 'Upgrading',
  Uninstalling: 'Uninstalling',
  ReleaseLocked: 'ReleaseLocked',
  Suspended: 'Suspended',
  RollingBack: 'RollingBack',
  /** A failed install/upgrade is being remediated or waits for its next try. */
  Remediating: 'Remediating',
  /** Retries are used up: a person must change something. */
  RetriesExceeded: 'RetriesExceeded',
  Testing: 'Testing',
  /** dependsOn: a named HelmRelease does not exist, or the dependencies form a cycle. */
  DependencyInvalid: 'DependencyInvalid',
  /** A cluster of a fleet cannot read the fleet's freezes (Redis, its ACL): no helm action until it can. */
  FleetFreezesUnknown: 'FleetFreezesUnknown',
} as const;
export type StateReason = (typeof StateReason)[keyof typeof StateReason];

/** Reasons of a Team's Ready condition: can notify deliver on every channel? */
export const TeamReason = {
  Delivering: 'Delivering',
  DeliveryFailed: 'DeliveryFailed',
} as const;
export type TeamReason = (typeof TeamReason)[keyof typeof TeamReason];

export type Reason = ReleaseEvent | StateReason | TeamReason;

export type Severity = 'info' | 'error';

const ERROR_EVENTS: ReadonlySet<ReleaseEvent> = new Set([
  ReleaseEvent.InstallFailed,
  ReleaseEvent.UpgradeFailed,
  ReleaseEvent.TestFailed,
  ReleaseEvent.RollbackFailed,
  ReleaseEvent.UninstallFailed,
  ReleaseEvent.DriftDetected,
  ReleaseEvent.DependencyNotReady,
  ReleaseEvent.ChartPullFailed,
  ReleaseEvent.ValuesInvalid,
  ReleaseEvent.Stalled,
  ReleaseEvent.ReleaseUnlocked,
  ReleaseEvent.ActionRefused,
  ReleaseEvent.ReleaseOwnedByOther,
  ReleaseEvent.TargetNamespaceRefused,
  ReleaseEvent.AccessDenied,
  ReleaseEvent.IdentityForbidden,
  ReleaseEvent.KubeConfigInvalid,
  ReleaseEvent.KubeConfigRefused,
  ReleaseEvent.TargetUnreachable,
  ReleaseEvent.ReconcileError,
  ReleaseEvent.ReleaseRecordInvalid,
  ReleaseEvent.RepositoryNotAllowed,
  ReleaseEvent.VerificationFailed,
  ReleaseEvent.InvalidCELExpression,
]);

export function severityOf(event: ReleaseEvent): Severity {
  return ERROR_EVENTS.has(event) ? 'error' : 'info';
}

/**
 * The start of an operation whose outcome is told next: notifications open their message with
 * it, but it is not a Kubernetes Event (the Reconciling condition says what runs meanwhile), which
 * saves the API server one write per helm operation.
 */
const PROGRESS_EVENTS: ReadonlySet<ReleaseEvent> = new Set([ReleaseEvent.InstallStarted, ReleaseEvent.UpgradeStarted]);

export function isProgressEvent(event: ReleaseEvent): boolean {
  return PROGRESS_EVENTS.has(event);
}
