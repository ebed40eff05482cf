import type { HelmRelease } from '../../../api/helmrelease.js';
import { ReleaseEvent } from '../../../api/vocabulary.js';
import { apiErrorMessage, isForbidden, isNotFound } from '../../../core/kube/errors.js';
import { kubeconfigSecretRef, targetFor, type KubeconfigSecret } from '../../../core/release/target-cluster.js';
import { KubeconfigUnusable, type ClusterPorts, type ControllerContext } from '../ports/context.js';

/** Where a pass acts: the controller's own cluster (no ports of another), a remote one, or nowhere, and why. */
export type ClusterChoice = { kind: 'home' } | { kind: 'remote'; ports: ClusterPorts } | { kind: 'refused'; reason: ReleaseEvent; message: string };

/**
 * The cluster of spec.kubeConfig, chosen per pass: its Secret is read again each time (a rotated
 * Secret is used at once, its clients cached by resourceVersion), from the HelmRelease's own
 * namespace of the controller's cluster, as the controller (as Flux reads it).
 */
export async function chooseCluster(ctx: ControllerContext, release: HelmRelease): Promise<ClusterChoice> {
  const ref = kubeconfigSecretRef(release);
  if (!ref) return { kind: 'home' };
  if (!ctx.targets)
    return { kind: 'refused', reason: ReleaseEvent.KubeConfigInvalid, message: 'spec.kubeConfig: this controller does not reach other clusters' };
  let secret: KubeconfigSecret | undefined;
  try {
    const read = await ctx.kube.core.readNamespacedSecret({ namespace: release.metadata.namespace, name: ref.name });
    secret = { resourceVersion: read.metadata?.resourceVersion, data: read.data };
  } catch (error) {
    if (isForbidden(error)) {
      const message = `spec.kubeConfig: Secret ${release.metadata.namespace}/${ref.name} cannot be read by the controller: ${apiErrorMessage(error)}`;
      return { kind: 'refused', reason: ReleaseEvent.KubeConfigInvalid, message };
    }
    if (!isNotFound(error)) throw error;
  }
  const target = targetFor(release, secret, ctx.targets.policy);
  switch (target.kind) {
    case 'home':
      return target;
    case 'refused':
      return { kind: 'refused', reason: ReleaseEvent[target.reason], message: target.message };
    case 'remote':
      try {
        return { kind: 'remote', ports: await ctx.targets.portsFor(target) };
      } catch (error) {
        if (error instanceof KubeconfigUnusable) return { kind: 'refused', reason: ReleaseEvent.KubeConfigInvalid, message: error.message };
        throw error;
      }
  }
}
