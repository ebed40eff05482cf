import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import type { FluxReleaseTarget } from './map-release.js';

/**
 * Flux's storageNamespace hand-over. helm's CLI (what helmcrew runs) keeps a release's records in
 * the namespace it installs into; Flux may keep them elsewhere (spec.storageNamespace, by default
 * the Flux HelmRelease's namespace). Moving the record Secrets (`sh.helm.release.v1.<name>.v<N>`,
 * labels owner=helm, name=<name>) to the release's namespace, unchanged, is all it takes for helm
 * to see the same history there: revisions continue, rollback works.
 */

const RECORD_NAME = /^sh\.helm\.release\.v1\.(.+)\.v([0-9]+)$/;

export interface RecordMovePlan {
  /** The records to create in the release's namespace (as they are), oldest first. */
  copies: V1Secret[];
  /** Why nothing may move; empty: go. */
  refusals: string[];
}

/** Pure: what to move for `target`, given the records found in the storage namespace and in the release's namespace. */
export function planRecordMove(target: FluxReleaseTarget, inStorage: V1Secret[], inTarget: V1Secret[]): RecordMovePlan {
  const { releaseName, storageNamespace: from, namespace: to } = target;
  const mine = (s: V1Secret) => RECORD_NAME.exec(s.metadata?.name ?? '')?.[1] === releaseName && s.metadata?.labels?.owner === 'helm';
  const revision = (s: V1Secret) => Number(RECORD_NAME.exec(s.metadata!.name!)![2]);
  const records = inStorage.filter(mine).sort((a, b) => revision(a) - revision(b));
  const refusals: string[] = [];
  if (records.length === 0) refusals.push(`no release records of ${releaseName} in ${from} (sh.helm.release.v1.${releaseName}.v*, label owner=helm)`);
  const there = inTarget.filter(mine);
  if (there.length > 0)
    refusals.push(
      `${to} already holds records of a release ${releaseName} (${there.map((s) => s.metadata!.name).join(', ')}): two histories cannot be merged; ` +
        'uninstall or move that one first',
    );
  const copies = records.map((s) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    type: s.type,
    metadata: { name: s.metadata!.name!, namespace: to, labels: { ...(s.metadata?.labels ?? {}) } },
    data: s.data ?? {},
  }));
  return { copies, refusals };
}

/** The revisions moved, or a sentence saying why none was. */
export type RecordMoveOutcome = { ok: true; revisions: number[] } | { ok: false; why: string };

/**
 * I/O: moves the records — every copy is created in the release's namespace before any original is
 * deleted; a copy that fails removes the copies made, so a failure leaves the records where they were.
 */
export async function moveReleaseRecords(core: CoreV1Api, target: FluxReleaseTarget): Promise<RecordMoveOutcome> {
  const selector = `owner=helm,name=${target.releaseName}`;
  const [inStorage, inTarget] = await Promise.all([
    core.listNamespacedSecret({ namespace: target.storageNamespace, labelSelector: selector }),
    core.listNamespacedSecret({ namespace: target.namespace, labelSelector: selector }),
  ]);
  const plan = planRecordMove(target, inStorage.items, inTarget.items);
  if (plan.refusals.length > 0) return { ok: false, why: plan.refusals.join('; ') };
  const made: string[] = [];
  try {
    for (const copy of plan.copies) {
      await core.createNamespacedSecret({ namespace: target.namespace, body: copy });
      made.push(copy.metadata!.name!);
    }
  } catch (error) {
    await Promise.all(made.map((name) => core.deleteNamespacedSecret({ namespace: target.namespace, name }).catch(() => undefined)));
    return { ok: false, why: `could not create the records in ${target.namespace} (${(error as Error).message}); nothing was moved` };
  }
  for (const copy of plan.copies) await core.deleteNamespacedSecret({ namespace: target.storageNamespace, name: copy.metadata!.name! });
  return { ok: true, revisions: plan.copies.map((c) => Number(RECORD_NAME.exec(c.metadata!.name!)![2])) };
}
