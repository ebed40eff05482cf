import { ADOPT_FROM_FLUX_ANNOTATION, ADOPT_RELEASE_ANNOTATION } from '../../../api/annotations.js';
import type { HelmRelease } from '../../../api/helmrelease.js';
import type { ReleaseHistory } from '../../../core/helm-storage/release-storage.js';
import { describeObject, ManifestError, manifestObjects } from '../../drift/manifest-objects.js';

/**
 * The handover of a release Flux installed (`helmcrew import flux` names it): the HelmRelease
 * says which release it takes over and which Flux HelmRelease installed it, and the release
 * must show it. Flux's helm-controller (v1.6.3, internal/postrender/common_renderer.go) labels
 * every object it renders with `helm.toolkit.fluxcd.io/name` and `…/namespace` of its HelmRelease,
 * and helm stores the rendered manifest in the release record, so every object of the newest
 * record must carry exactly those labels. Flux writes no labels of its own on the record Secret
 * (only helm's owner/name/status/version). Pure: consulted only for a release without helmcrew
 * owner labels; the upgrade that takes it over writes them.
 */

export const FLUX_NAME_LABEL = 'helm.toolkit.fluxcd.io/name';
export const FLUX_NAMESPACE_LABEL = 'helm.toolkit.fluxcd.io/namespace';

export type Handover =
  /** No handover named: the ownership guard refuses an unmanaged release as ever. */
  | { kind: 'none' }
  /** Take it over: its next upgrade (revision `revision` + 1) writes helmcrew's owner labels. */
  | { kind: 'adopt'; release: string; from: string; revision: number }
  | { kind: 'refused'; reason: string };

const NAMESPACED_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/;

export function decideHandover(release: HelmRelease, history: ReleaseHistory): Handover {
  const named = release.metadata.annotations?.[ADOPT_RELEASE_ANNOTATION];
  if (named === undefined) return { kind: 'none' };
  const latest = history.latest;
  if (!latest) return { kind: 'none' };
  const actual = `${latest.namespace}/${latest.name}`;
  if (named !== actual) return refused(`${ADOPT_RELEASE_ANNOTATION} names "${named.slice(0, 120)}", but this HelmRelease's release is ${actual}`);
  const flux = NAMESPACED_NAME.exec(release.metadata.annotations?.[ADOPT_FROM_FLUX_ANNOTATION] ?? '');
  if (!flux) return refused(`${ADOPT_FROM_FLUX_ANNOTATION} must name the Flux HelmRelease that installed it, as <namespace>/<name>`);
  const [fluxNamespace, fluxName] = [flux[1]!, flux[3]!];
  const from = `Flux HelmRelease ${fluxNamespace}/${fluxName}`;
  if (latest.status.startsWith('pending-')) return refused(`revision ${latest.revision} is ${latest.status}; the handover waits until that operation ends`);
  if (!history.deployed) return refused(`it has no deployed revision to take over`);
  let objects;
  try {
    objects = manifestObjects(latest.manifest ?? '', { name: latest.name, namespace: latest.namespace });
  } catch (error) {
    if (error instanceof ManifestError) return refused(`its manifest cannot be read (${error.message})`);
    throw error;
  }
  if (objects.length === 0) return refused(`revision ${latest.revision} has no objects whose Flux labels could show that ${from} installed it`);
  for (const object of objects) {
    const labels = object.metadata.labels ?? {};
    const name = labels[FLUX_NAME_LABEL];
    const namespace = labels[FLUX_NAMESPACE_LABEL];
    if (name === fluxName && namespace === fluxNamespace) continue;
    const carries =
      name === undefined && namespace === undefined ? 'carries no Flux labels' : `carries ${FLUX_NAMESPACE_LABEL}=${namespace} ${FLUX_NAME_LABEL}=${name}`;
    return refused(`${describeObject(object)} of revision ${latest.revision} ${carries}: not installed by ${from}`);
  }
  return { kind: 'adopt', release: actual, from, revision: latest.revision };
}

function refused(reason: string): Handover {
  return { kind: 'refused', reason: `handover refused: ${reason}` };
}
