import type { HelmRelease } from '../../../api/helmrelease.js';
import { outcomeAtGeneration } from '../../../core/release/reconciled.js';
import { ConditionType, FINALIZER } from '../../../api/vocabulary.js';
import { findCondition } from '../../status/conditions.js';
import type { ControllerContext, Effects, HelmReleasePort, HelmReleaseWrites, PassContext, ReconcileContext } from './context.js';
import { isConflict } from '../../../core/kube/errors.js';
import { StatusWriter } from './status-writer.js';
import type { ReadFrom } from './pass.js';

/**
 * Passes start from the informer's copy of the HelmRelease instead of a GET. A cached copy can lag
 * the server by a watch event, so it is trusted in two ways only:
 * - a settled copy, for one conclusion: "nothing to change". That pass gets ports that refuse every
 *   write and effect, and fetching a chart (FreshReadNeeded).
 * - any other copy, up to its first write: that write carries the copy's resourceVersion, so the
 *   server refuses it (409) when the copy was stale. Nothing with an effect may come before it.
 * Either way an aborted pass is redone from a fresh GET. What a pass may call is its ports' types
 * (context.ts); this file only chooses their implementations.
 */

/** Thrown by a cached pass's ports when it wants to act on a copy not proven current. */
export class FreshReadNeeded extends Error {
  override name = 'FreshReadNeeded';
}

/**
 * Pure: does this copy look settled — its generation reconciled and Ready, nothing in progress,
 * not being deleted or suspended? Only then is a pass from the cache worth trying: a spec change
 * (generation ahead of observedGeneration) would need a fresh read anyway.
 */
export function looksSettled(release: HelmRelease): boolean {
  const { metadata } = release;
  if (metadata.deletionTimestamp || release.spec?.suspend) return false;
  if (!metadata.finalizers?.includes(FINALIZER)) return false;
  if (outcomeAtGeneration(release) !== 'ready') return false;
  return findCondition(release.status?.conditions, ConditionType.Stalled)?.status !== 'True';
}

/** The ports of one pass over `release`, read as `readFrom` says, acting as `ctx` (already the HelmRelease's identity). */
export function passContext(ctx: ControllerContext, readFrom: ReadFrom, release: HelmRelease): PassContext {
  const writes =
    readFrom === 'cache' ? refusingWrites() : readFrom === 'cache-until-write' ? firstWriteVerifies(ctx, release.metadata.resourceVersion!) : allWrites(ctx);
  const reads = readPorts(ctx, readFrom === 'cache' ? { pullChart: () => refuse('fetching a chart') } : ctx.helm);
  return {
    ...reads,
    ...writes,
    status: new StatusWriter(writes.releaseWrites, release),
    ...(ctx.operations ? { operations: ctx.operations } : {}),
    ...(ctx.helmSlots ? { helmSlots: ctx.helmSlots } : {}),
    ...(ctx.settled ? { settled: ctx.settled } : {}),
  };
}

type Writes = Pick<PassContext, 'releaseWrites' | 'effects'>;

/** Only the reads of the controller's ports: a pass holds nothing else it could call. */
function readPorts(ctx: ControllerContext, helm: ReconcileContext['helm']): ReconcileContext {
  return {
    kube: ctx.kube,
    api: ctx.api,
    storage: ctx.storage,
    helm,
    tenancy: ctx.tenancy,
    charts: ctx.charts,
    digester: ctx.digester,
    log: ctx.log,
    now: ctx.now,
    ...(ctx.gitCharts ? { gitCharts: ctx.gitCharts } : {}),
    ...(ctx.provenance ? { provenance: ctx.provenance } : {}),
    ...(ctx.sops ? { sops: ctx.sops } : {}),
    ...(ctx.cosign ? { cosign: ctx.cosign } : {}),
    ...(ctx.notation ? { notation: ctx.notation } : {}),
    ...(ctx.drift ? { drift: ctx.drift } : {}),
    ...(ctx.freezes ? { freezes: ctx.freezes } : {}),
    ...(ctx.objects ? { objects: ctx.objects } : {}),
    ...(ctx.releaseObjects ? { releaseObjects: ctx.releaseObjects } : {}),
    ...(ctx.proposals ? { proposals: ctx.proposals } : {}),
  };
}

function effectsOf(ctx: ControllerContext): Effects {
  return {
    helm: ctx.helm,
    storage: ctx.storage,
    events: ctx.events,
    ...(ctx.crds ? { crds: ctx.crds } : {}),
    ...(ctx.drift ? { driftCorrection: ctx.drift } : {}),
    ...(ctx.freezeHolds ? { freezeHolds: ctx.freezeHolds } : {}),
    ...(ctx.proposalWrites ? { proposalWrites: ctx.proposalWrites } : {}),
  };
}

/** A pass from a fresh read: everything. */
function allWrites(ctx: ControllerContext): Writes {
  const effects = effectsOf(ctx);
  return { releaseWrites: () => ctx.api, effects: () => effects };
}

function refuse(what: string): never {
  throw new FreshReadNeeded(`${what} from a cached read`);
}

/** A settled copy's pass: reads only; the first write it would make aborts it. */
export function refusingWrites(): Writes {
  return { releaseWrites: () => refuse('a HelmRelease write'), effects: () => refuse('an effect') };
}

/**
 * A copy that is not settled (a new spec, a first install): until its first HelmRelease write
 * succeeds only reads and fetching a chart archive go through; that write is made conditional on
 * `resourceVersion`, and a conflict aborts the pass. After it, the copy was the server's state at
 * that write, and the pass goes on as usual.
 */
export function firstWriteVerifies(ctx: ControllerContext, resourceVersion: string): Writes {
  const verifying = verifyingReleaseWrites(ctx.api, resourceVersion);
  const effects = effectsOf(ctx);
  return {
    releaseWrites: () => verifying.writes,
    effects: () => (verifying.verified() ? effects : refuse('an effect before the first write')),
  };
}

/** The HelmRelease writes of a pass from a copy at `resourceVersion`: the first one conditional on it. */
export function verifyingReleaseWrites(api: HelmReleasePort, resourceVersion: string): { writes: HelmReleaseWrites; verified: () => boolean } {
  let verified = false;
  // Decided at each call: the first write unlocks the rest.
  const first = async <T>(what: string, write: () => Promise<T>): Promise<T> => {
    try {
      const result = await write();
      verified = true;
      return result;
    } catch (error) {
      if (isConflict(error)) throw new FreshReadNeeded(`${what} on a cached copy older than the server's`);
      throw error;
    }
  };
  const precondition = { resourceVersion };
  return {
    verified: () => verified,
    writes: {
      patchStatus: (release, status) =>
        verified ? api.patchStatus(release, status) : first('patchStatus', () => api.patchStatus(release, status, precondition)),
      addFinalizer: (release) => (verified ? api.addFinalizer(release) : first('addFinalizer', () => api.addFinalizer(release, precondition))),
      removeFinalizer: (release) => (verified ? api.removeFinalizer(release) : refuse('removing the finalizer before the first write')),
    },
  };
}
