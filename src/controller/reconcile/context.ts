import type { TenancyPolicy } from '../../config.js';
import type { Logger } from '../../log.js';
import type { RunningOperations } from './running-operations.js';
import type { RepositoryIndexCache } from '../charts/repository-index.js';
import type { HelmClient } from '../helm/helm-client.js';
import type { ReleaseStorage } from '../helm/release-storage.js';
import type { KubeClients } from '../kube/client.js';
import type { IdentityClients } from '../kube/identity.js';
import type { ReleaseEventSink } from '../kube/event-recorder.js';
import type { HelmReleaseApi } from '../kube/helmrelease-api.js';
import type { ValuesDigester } from './values-digest.js';

/** Everything a reconcile touches, injected so tests can drive it and the clock. */
export interface ReconcileContext {
  /** Clients for what is read on a HelmRelease's behalf; within a pass, its identity's (see reconciler). */
  kube: KubeClients;
  api: HelmReleaseApi;
  storage: ReleaseStorage;
  identities: IdentityClients;
  tenancy: TenancyPolicy;
  helm: HelmClient;
  charts: RepositoryIndexCache;
  /** Keyed values digest shared by all replicas. */
  digester: ValuesDigester;
  events: ReleaseEventSink;
  log: Logger;
  now: () => Date;
  /** Installs and upgrades running here, cancelled when a newer generation arrives. */
  operations?: RunningOperations;
}

/** Thrown to have the queue try again later with backoff: the cause may clear up by itself. */
export class RetryLaterError extends Error {
  override name = 'RetryLaterError';
}
