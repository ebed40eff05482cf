import type { HelmRelease } from '../../../api/helmrelease.js';
import { ReleaseEvent } from '../../../api/vocabulary.js';
import { withSupersededFromStatus, type RecordSeen, type ReleaseHistory } from '../../../core/helm-storage/release-storage.js';
import { apiErrorMessage, isForbidden } from '../../../core/kube/errors.js';
import { releaseTarget, type ReleaseTarget } from '../../../core/release/release-target.js';
import { reportRefused } from '../actions/refuse.js';
import { passContext } from '../ports/cached-read.js';
import type { ClusterPorts, ControllerContext, PassContext, ReleaseRecordReads, SettledHistoryPort } from '../ports/context.js';
import { settledKey, type NamedRecords } from '../decide/settled-records.js';
import { checkNeedsManifest } from './settled-check.js';
import { needsFinalizer } from '../decide/lifecycle-state.js';
import { checkTenancy, serviceAccountUser } from '../decide/tenancy.js';
import { describeIdentity } from '../../../core/release/release-identity.js';
import { MANAGED_IDENTITY_ROLE } from '../../tenancy/managed-identity.js';
import { done, isPassEnd, type Pass, type PassEnd, type ReadFrom } from '../ports/pass.js';
import { chooseCluster } from './target-cluster.js';
import { targetProblem } from '../actions/target-unreachable.js';

/**
 * The first stage: who the pass acts as, whether the operator lets it act at all, the finalizer,
 * and Helm's records for the target. Nothing is read or run in a namespace the operator keeps
 * this HelmRelease out of.
 */
export async function gateStage(
  controllerCtx: ControllerContext,
  release: HelmRelease,
  readFrom: ReadFrom,
  knownHistory?: ReleaseHistory,
): Promise<Pass | PassEnd> {
  const key = `${release.metadata.namespace}/${release.metadata.name}`;
  const target = releaseTarget(release, controllerCtx.tenancy);
  // The cluster it acts on (spec.kubeConfig): a port choice made per pass.
  const cluster = await chooseCluster(controllerCtx, release);
  // The pass's ports: its reads, its one status writer, its writes as its read allows (cached-read.ts).
  const ctx = passContext(actingAs(controllerCtx, target, cluster.kind === 'remote' ? cluster.ports : undefined), readFrom, release);
  const tenancy = checkTenancy(release, target, ctx.tenancy);
  if (!tenancy.allowed) {
    if (release.metadata.deletionTimestamp) await ctx.releaseWrites().removeFinalizer(release);
    else await reportRefused(ctx, release, ReleaseEvent.TargetNamespaceRefused, tenancy.message);
    return done(key, 'refused');
  }
  if (cluster.kind === 'refused') return refuseCluster(ctx, release, key, cluster);
  const where = cluster.kind === 'remote' ? cluster.ports : undefined;
  if (!(await identityInPlace(controllerCtx, ctx, release, target))) return done(key, 'refused');
  if (!knownHistory && needsFinalizer(release)) {
    // The finalizer is decided from the object alone, so it is written while the history is
    // read. Metadata changes do not requeue (only generation does), so the pass goes on from the
    // object the PATCH returned: a finalizer changes neither the spec nor Helm's records.
    const [updated, read] = await Promise.all([
      ctx.releaseWrites().addFinalizer(release),
      readHistory(ctx, release, target, readFrom, where, controllerCtx.settled),
    ]);
    return isPassEnd(read) ? read : { end: 'go-on-from', release: updated, history: read };
  }
  const history = knownHistory ?? (await readHistory(ctx, release, target, readFrom, where, controllerCtx.settled));
  return isPassEnd(history) ? history : { ctx, release, target, key, history };
}

/**
 * helmcrew's own ServiceAccount of the namespace, before the pass acts as it (managed-identity.ts).
 * false (status written, or the finalizer of a release never installed removed) when the
 * controller may not set it up: the operator grants it those rights or names another identity.
 */
async function identityInPlace(controllerCtx: ControllerContext, ctx: PassContext, release: HelmRelease, target: ReleaseTarget): Promise<boolean> {
  const identity = target.identity;
  if (identity.kind !== 'managed' || !controllerCtx.managedIdentities) return true;
  try {
    await controllerCtx.managedIdentities.ensure(identity.namespace);
    return true;
  } catch (error) {
    if (!isForbidden(error)) throw error;
    if (release.metadata.deletionTimestamp && !release.status?.releaseName) {
      await ctx.releaseWrites().removeFinalizer(release);
      return false;
    }
    const message =
      `Could not set up ${describeIdentity(identity)}, which this HelmRelease acts as: ${apiErrorMessage(error)}. ` +
      `The controller needs create and patch on ServiceAccounts and RoleBindings and bind on the ${MANAGED_IDENTITY_ROLE} ClusterRole; ` +
      `or name spec.serviceAccountName, HELMCREW_DEFAULT_SERVICE_ACCOUNT, or this namespace in HELMCREW_CLUSTER_SCOPE_NAMESPACES`;
    await reportRefused(ctx, release, ReleaseEvent.IdentityForbidden, message);
    return false;
  }
}

/**
 * The pass as the HelmRelease's identity: values sources and release records are read with the
 * ServiceAccount's rights when it acts as one, as helm is run. Status and Events of the
 * HelmRelease itself stay the controller's. On a remote target (spec.kubeConfig) helm, the release
 * records, drift and CRDs are that cluster's, the ServiceAccount is impersonated there, and the
 * values sources are read here as the controller (the ServiceAccount is the target's, as in Flux).
 */
export function actingAs(ctx: ControllerContext, target: ReleaseTarget, cluster?: ClusterPorts): ControllerContext {
  if (cluster) {
    const user = target.impersonate ? serviceAccountUser(target.impersonate) : undefined;
    const there = cluster.identities.forUser(user);
    const objects = ctx.objects?.forUser(user);
    const releaseObjects = cluster.objects?.forUser(user);
    // The remembered histories are of the controller's own cluster's records (its record watch).
    const { settled: _ownClusterOnly, ...own } = ctx;
    return {
      ...own,
      ...(objects ? { objects } : {}),
      ...(releaseObjects ? { releaseObjects } : {}),
      storage: cluster.storage.withClients(there),
      helm: cluster.helm,
      identities: cluster.identities,
      ...(ctx.drift && cluster.drift ? { drift: cluster.drift } : {}),
      ...(ctx.crds && cluster.crds ? { crds: cluster.crds } : {}),
    };
  }
  if (!target.impersonate) return ctx;
  const user = serviceAccountUser(target.impersonate);
  const kube = ctx.identities.forUser(user);
  const objects = ctx.objects?.forUser(user);
  const releaseObjects = ctx.releaseObjects?.forUser(user);
  return { ...ctx, kube, storage: ctx.storage.withClients(kube), ...(objects ? { objects } : {}), ...(releaseObjects ? { releaseObjects } : {}) };
}

/**
 * The kubeconfig of spec.kubeConfig cannot be used: said in status until the Secret or the spec
 * changes (the Secret is watched). Deleting such a HelmRelease cannot reach its cluster: it goes,
 * leaving whatever it installed there, and says so.
 */
async function refuseCluster(ctx: PassContext, release: HelmRelease, key: string, refused: { reason: ReleaseEvent; message: string }): Promise<PassEnd> {
  if (release.metadata.deletionTimestamp) {
    await ctx.effects().events.record(release, refused.reason, `${refused.message}; deleting this HelmRelease leaves its release in the target cluster`);
    await ctx.releaseWrites().removeFinalizer(release);
  } else await reportRefused(ctx, release, refused.reason, refused.message);
  return done(key, 'refused');
}

/** Helm's records for the target, or how the pass ends (status written) when they cannot be read. */
async function readHistory(
  ctx: PassContext,
  release: HelmRelease,
  target: ReleaseTarget,
  readFrom: ReadFrom,
  cluster?: ClusterPorts,
  settledHistories?: SettledHistoryPort,
): Promise<ReleaseHistory | PassEnd> {
  try {
    // A quiet check of a settled release needs only the newest records (cached-read.ts); any
    // action it might lead to is decided again from a fresh pass with the whole history.
    // Every helm operation of ours is followed by a status write, so records as new as this
    // object's version include all of them. The API server answers such a read from its watch
    // cache at once, as new as that cache is (milliseconds behind etcd): someone else's helm run
    // is seen unless it is that recent, and then the next check sees it. A fully consistent read
    // would ask etcd for its revision and wait for the cache to reach it (up to ~100 ms).
    // At rest, the records read last time stand for this read while the watch of their metadata
    // shows them unchanged (settled-records.ts). Only on the controller's own cluster (a remote
    // target has no watch) and for a release that needs no manifest; every such read is
    // remembered (the settled part of it), only a settled check recalls.
    const settled = cluster || checkNeedsManifest(release) ? undefined : settledHistories;
    const key = settledKey(target);
    // The record watch (own cluster only) names the records, so they can be read by name.
    const watch = cluster ? undefined : settledHistories;
    const read = async (opts: { withoutSuperseded?: boolean; notOlderThan?: string }) => {
      const { history, records } = await readRecords(
        ctx.storage,
        target,
        opts,
        watch && ((notOlderThan) => watch.recordNames(key, notOlderThan, opts.withoutSuperseded ?? false)),
      );
      settled?.remember(key, history, records);
      // It could read them: an install's later read need not GET an absent record to find out (namesToRead).
      watch?.readRightsShown(key);
      return history;
    };
    if (readFrom === 'cache') {
      const recalled = settled?.recall(key);
      if (recalled) return withSupersededFromStatus(recalled, release.status?.history);
      const newest = await read({
        withoutSuperseded: true,
        // Another cluster's records have their own resourceVersions.
        ...(cluster ? {} : { notOlderThan: release.metadata.resourceVersion }),
      });
      return withSupersededFromStatus(newest, release.status?.history);
    }
    if (readFrom === 'latest' || cluster) return await read({});
    return await read({ notOlderThan: release.metadata.resourceVersion });
  } catch (error) {
    const key = target.key;
    if (cluster) {
      const ended = await targetProblem(ctx, release, key, cluster, error);
      if (ended) return ended;
    }
    if (!isForbidden(error)) throw error;
    const message = `Cannot read the Helm release records of ${target.namespace}/${target.releaseName}${cluster ? ` in ${cluster.name}` : ''}: ${apiErrorMessage(error)}`;
    // Never installed by this object, nothing to uninstall: deleting need not wait for rights.
    if (release.metadata.deletionTimestamp && !release.status?.releaseName) {
      await ctx.releaseWrites().removeFinalizer(release);
      return done(key, 'refused');
    }
    // Like wrong values, missing rights do not come back by retrying fast; the periodic check looks again.
    await reportRefused(ctx, release, ReleaseEvent.AccessDenied, message);
    return done(key, 'refused');
  }
}

/**
 * Helm's records of a release: each by name when the record watch names them for the version
 * asked for (a GET from the API server's watch cache each, and one for the next revision's, which
 * must be absent, when the watch has not seen that version yet: settled-records.ts namesToRead),
 * else one label-selected LIST (which the API server answers by scanning the namespace's Secrets).
 * Same records either way.
 */
async function readRecords(
  storage: ReleaseRecordReads,
  target: ReleaseTarget,
  opts: { withoutSuperseded?: boolean; notOlderThan?: string },
  watchedNames?: (notOlderThan: string) => NamedRecords | undefined,
): Promise<{ history: ReleaseHistory; records: RecordSeen[] }> {
  const { namespace, releaseName } = target;
  const named = opts.notOlderThan ? watchedNames?.(opts.notOlderThan) : undefined;
  if (named && opts.notOlderThan) {
    const byName = await storage.historyOfRecords(namespace, releaseName, named.names, {
      ...opts,
      notOlderThan: named.notOlderThan,
      ...(named.absent ? { absent: named.absent } : {}),
    });
    if (byName) return byName;
  }
  return storage.historyAndRecords(namespace, releaseName, opts);
}
