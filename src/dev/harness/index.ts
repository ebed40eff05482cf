// The cluster harness shared by the local environment's demo, the integration tests and the
// benchmarks: namespaces, applying HelmReleases, waiting for the controller (core's "reconciled at
// this generation" predicate), Events. It builds on src/core and src/api only.
export { mapLimit } from './map-limit.js';
export { randomSuffix, uniqueName } from './names.js';
export {
  createNamespace,
  deleteNamespace,
  deleteNamespaceFully,
  deleteNamespaceWithoutController,
  ensureNamespace,
  stripHelmReleaseFinalizers,
} from './namespaces.js';
export { namespacesAddedSince, namespacesLeftBehind, type LeftBehind, type NamespaceSeen, type ReleaseSeen } from './left-behind.js';
export { readNamespaces, readReleasesWithFinalizers, waitNamespacesGone } from './namespace-state.js';
export { pollUntil, type PollOptions } from './poll.js';
export { applyHelmRelease, helmReleaseObject } from './releases.js';
export { waitAllReconciled, waitForGone, waitForReadyReason, waitForReconciled, type ReconciledCount } from './reconciled.js';
export { eventReasons, waitForEvents } from './events.js';
export { deploymentAvailable, servedColor } from './unicorn.js';
export { startEnvironmentWithCrds } from './environment.js';
export { createTeam, deleteTeam } from './teams.js';
