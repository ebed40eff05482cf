import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { FINALIZER } from '../../src/api/vocabulary.js';
import { ADOPT_FROM_FLUX_ANNOTATION, ADOPT_RELEASE_ANNOTATION } from '../../src/api/annotations.js';
import { summarizeHistory, type StoredRelease } from '../../src/core/helm-storage/release-storage.js';
import { decideHandover } from '../../src/controller/reconcile/decide/handover.js';
import { determineOwnership, describeOwner } from '../../src/controller/reconcile/decide/ownership.js';
import { determineLifecycle } from '../../src/controller/reconcile/decide/lifecycle-state.js';
import { determineReleaseState, nextAction } from '../../src/controller/reconcile/decide/release-state.js';
import type { DesiredRelease } from '../../src/core/release/desired-release.js';
import { SecretValues } from '../../src/core/release/secret-values.js';

const HANDOVER = { [ADOPT_RELEASE_ANNOTATION]: 'web/podinfo', [ADOPT_FROM_FLUX_ANNOTATION]: 'flux-apps/podinfo' };

const release = (annotations?: Record<string, string>, over: Partial<HelmRelease['metadata']> = {}): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name: 'podinfo', namespace: 'web', generation: 1, finalizers: [FINALIZER], ...(annotations ? { annotations } : {}), ...over },
  spec: { chart: { repository: 'https://charts.example.test', name: 'podinfo', version: '6.5.0' }, releaseName: 'podinfo' },
});

/** A manifest as Flux's helm-controller renders it: its origin labels on every object. */
function fluxManifest(name = 'podinfo', namespace = 'flux-apps', extra = ''): string {
  const labels = `    helm.toolkit.fluxcd.io/name: ${name}\n    helm.toolkit.fluxcd.io/namespace: ${namespace}\n`;
  return (
    `---\n# Source: podinfo/templates/service.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: podinfo\n  labels:\n${labels}spec:\n  ports: [{port: 80}]\n` +
    `---\n# Source: podinfo/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: podinfo\n  labels:\n${labels}${extra}spec:\n  replicas: 1\n`
  );
}

// The record Flux leaves: helm's own Secret labels only, the manifest post-rendered with its labels.
const fluxRecord = (revision: number, status: StoredRelease['status'], manifest = fluxManifest()): StoredRelease => ({
  name: 'podinfo',
  namespace: 'web',
  revision,
  status,
  chartName: 'podinfo',
  chartVersion: '6.5.0',
  config: { replicaCount: 1 },
  labels: { owner: 'helm', name: 'podinfo', status, version: String(revision) },
  manifest,
});

const history = (...records: StoredRelease[]) => summarizeHistory(records);

describe('handover of a release Flux installed (pure)', () => {
  it('adopts the named release when every object carries the named Flux HelmRelease’s labels', () => {
    const decision = decideHandover(release(HANDOVER), history(fluxRecord(1, 'superseded'), fluxRecord(2, 'deployed')));
    expect(decision).toEqual({ kind: 'adopt', release: 'web/podinfo', from: 'Flux HelmRelease flux-apps/podinfo', revision: 2 });
  });

  it('without the annotation there is no handover, and the guard refuses as before', () => {
    const h = history(fluxRecord(1, 'deployed'));
    expect(decideHandover(release(), h)).toEqual({ kind: 'none' });
    expect(determineOwnership(release(), h)).toEqual({ kind: 'unmanaged' });
    expect(determineLifecycle(release(), h).kind).toBe('not-ours');
  });

  it('refuses a release another Flux HelmRelease installed', () => {
    const decision = decideHandover(release(HANDOVER), history(fluxRecord(1, 'deployed', fluxManifest('other', 'flux-apps'))));
    expect(decision.kind).toBe('refused');
    expect(decision.kind === 'refused' && decision.reason).toContain(
      'Service podinfo of revision 1 carries helm.toolkit.fluxcd.io/namespace=flux-apps helm.toolkit.fluxcd.io/name=other: not installed by Flux HelmRelease flux-apps/podinfo',
    );
  });

  it('refuses a release installed by hand or another tool (no Flux labels)', () => {
    const manual = fluxManifest().replace(/ {4}helm\.toolkit\.fluxcd\.io\/[a-z]+: [a-z-]+\n/g, '');
    const decision = decideHandover(release(HANDOVER), history(fluxRecord(1, 'deployed', manual)));
    expect(decision.kind === 'refused' && decision.reason).toContain('carries no Flux labels: not installed by Flux HelmRelease flux-apps/podinfo');
    // The guard says why, in the words the status condition uses.
    const ownership = determineOwnership(release(HANDOVER), history(fluxRecord(1, 'deployed', manual)));
    expect(describeOwner(ownership)).toContain('has no helmcrew owner label); handover refused: Service podinfo of revision 1 carries no Flux labels');
  });

  it('refuses when one object lacks the labels (a half-Flux release)', () => {
    const mixed = `${fluxManifest()}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n`;
    const decision = decideHandover(release(HANDOVER), history(fluxRecord(1, 'deployed', mixed)));
    expect(decision.kind === 'refused' && decision.reason).toContain('ConfigMap extra of revision 1 carries no Flux labels');
  });

  it('refuses an annotation naming another release than this HelmRelease’s', () => {
    const decision = decideHandover(release({ ...HANDOVER, [ADOPT_RELEASE_ANNOTATION]: 'web/other' }), history(fluxRecord(1, 'deployed')));
    expect(decision.kind === 'refused' && decision.reason).toContain('names "web/other", but this HelmRelease\'s release is web/podinfo');
  });

  it('needs the Flux HelmRelease named, and a settled release with a deployed revision', () => {
    const noFrom = decideHandover(release({ [ADOPT_RELEASE_ANNOTATION]: 'web/podinfo' }), history(fluxRecord(1, 'deployed')));
    expect(noFrom.kind === 'refused' && noFrom.reason).toContain(`${ADOPT_FROM_FLUX_ANNOTATION} must name the Flux HelmRelease`);
    const pending = decideHandover(release(HANDOVER), history(fluxRecord(1, 'deployed'), fluxRecord(2, 'pending-upgrade')));
    expect(pending.kind === 'refused' && pending.reason).toContain('revision 2 is pending-upgrade');
    const failedInstall = decideHandover(release(HANDOVER), history(fluxRecord(1, 'failed')));
    expect(failedInstall.kind === 'refused' && failedInstall.reason).toContain('no deployed revision');
    const empty = decideHandover(release(HANDOVER), history(fluxRecord(1, 'deployed', '')));
    expect(empty.kind === 'refused' && empty.reason).toContain('has no objects');
  });

  it('never takes a release another HelmRelease owns, whatever the annotation says', () => {
    const owned = { ...fluxRecord(1, 'deployed'), labels: { owner: 'helm', 'helmcrew.dev/owner-namespace': 'web', 'helmcrew.dev/owner-name': 'other' } };
    expect(determineOwnership(release(HANDOVER), history(owned)).kind).toBe('other');
  });

  it('an adopted release is upgraded once even when nothing differs: revision N+1, no uninstall', () => {
    const h = history(fluxRecord(1, 'superseded'), fluxRecord(2, 'deployed'));
    const r = release(HANDOVER);
    expect(determineLifecycle(r, h).kind).toBe('active');
    const desired: DesiredRelease = {
      chartName: 'podinfo',
      chartVersion: '6.5.0',
      values: { replicaCount: 1 },
      valuesDigest: 'd',
      secrets: new SecretValues(),
    };
    const state = determineReleaseState(r, desired, h, { now: new Date(), timeoutSeconds: 300 });
    expect(state).toMatchObject({ kind: 'out-of-sync', handover: { release: 'web/podinfo', from: 'Flux HelmRelease flux-apps/podinfo', revision: 2 } });
    expect(nextAction(state).kind).toBe('upgrade');
  });

  it('deleting the HelmRelease before the handover upgrade leaves the Flux release installed', () => {
    const h = history(fluxRecord(1, 'deployed'));
    expect(determineLifecycle(release(HANDOVER, { deletionTimestamp: '2026-11-25T10:00:00Z' }), h).kind).toBe('deleting-not-ours');
  });

  it('once helmcrew’s upgrade labelled the release it is simply ours', () => {
    const ours = { ...fluxRecord(3, 'deployed'), labels: { owner: 'helm', 'helmcrew.dev/owner-namespace': 'web', 'helmcrew.dev/owner-name': 'podinfo' } };
    expect(determineOwnership(release(HANDOVER), history(fluxRecord(2, 'superseded'), ours))).toEqual({ kind: 'ours' });
  });
});
