import type { HelmRelease } from '../../api/helmrelease.js';
import { clusterKey } from '../../core/fleet/cluster-keys.js';
import type { KubeClients } from '../../core/kube/client.js';
import { IdentityClients } from '../../core/kube/identity.js';
import { ProposalStore } from '../../core/proposals/proposal-store.js';
import type { RedisConnection } from '../../core/redis.js';
import { OciRegistryClient } from '../charts/oci-registry.js';
import type { ControllerConfig } from '../config.js';
import { imageAccessReader } from './image-access.js';
import { imageSignatureChecker } from './image-verify.js';
import { ImageWatcher } from './image-watcher.js';
import { proposalDiff } from './proposal-diff.js';
import { previewRelease } from '../preview/compute-preview.js';
import type { ControllerContext } from '../reconcile/ports/context.js';
import { proposalPorts } from './proposal-ports.js';

/**
 * The controller's part of proposals (issue 35), wired once: the store in this cluster's keyspace
 * (the bot counts votes there), the ports passes apply approved ones through, and the tag watcher
 * the leader runs beside the watches (with the preview, for the plan diff a proposal's message shows).
 */
export function controllerProposals(connection: RedisConnection, config: ControllerConfig, kube: KubeClients) {
  const store = new ProposalStore(connection, clusterKey(config.queuePrefix, 'proposals'));
  return {
    ports: proposalPorts(store, config.cluster),
    watcher: (ctx: Readonly<ControllerContext>, deps: { releases: () => HelmRelease[]; enqueue: (key: string, reason: string) => void }) =>
      new ImageWatcher({
        ...deps,
        events: ctx.events,
        log: ctx.log,
        cluster: config.cluster,
        registry: new OciRegistryClient({ policy: config.allowedRepositoryHosts, timeoutMs: 15_000, maxBytes: config.maxIndexBytes }),
        accessFor: imageAccessReader({ kube, identities: new IdentityClients(kube), tenancy: config.tenancy }),
        signatureOf: imageSignatureChecker({
          kube,
          identities: new IdentityClients(kube),
          tenancy: config.tenancy,
          ...(ctx.cosign ? { cosign: ctx.cosign } : {}),
          ...(ctx.notation ? { notation: ctx.notation } : {}),
        }),
        store,
        tickMs: config.proposalsTickMs,
        retentionMs: config.proposalsRetentionMs,
        diffFor: (release, proposal) => proposalDiff((r, adjust) => previewRelease(ctx, r, adjust), release, proposal, ctx.log),
      }),
  };
}
