import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { releaseTarget } from '../../src/core/release/release-target.js';
import type { ClusterPorts, ControllerContext } from '../../src/controller/reconcile/ports/context.js';
import { actingAs } from '../../src/controller/reconcile/stages/gate.js';

/** Issue 32 (A): on a remote target the pass's cluster ports are swapped in; the HelmRelease's own side stays home. */
describe('actingAs with a remote target cluster', () => {
  const release = (serviceAccountName?: string): HelmRelease => ({
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { namespace: 'apps', name: 'web' },
    spec: { chart: { name: 'unicorn' }, kubeConfig: { secretRef: { name: 'edge' } }, ...(serviceAccountName ? { serviceAccountName } : {}) },
  });
  const tag = (name: string) => ({ name }) as never;

  function parts() {
    const impersonated: Array<string | undefined> = [];
    const cluster: ClusterPorts = {
      name: 'cluster edge (https://edge)',
      retryAfterMs: 1000,
      identities: { forUser: (user: string | undefined) => (impersonated.push(user), tag(`edge kube as ${user ?? 'kubeconfig user'}`)) } as never,
      storage: { withClients: (kube: { name: string }) => tag(`edge records read by ${kube.name}`) } as never,
      helm: tag('edge helm'),
      drift: tag('edge drift'),
      crds: tag('edge crds'),
    };
    const home = {
      kube: tag('home kube'),
      api: tag('home api'),
      events: tag('home events'),
      storage: tag('home records'),
      helm: tag('home helm'),
      drift: tag('home drift'),
      crds: tag('home crds'),
      identities: { forUser: () => tag('home kube as a ServiceAccount') },
    } as unknown as ControllerContext;
    return { cluster, home, impersonated };
  }

  it('helm, records, drift and CRDs are the target’s, the ServiceAccount impersonated there; values, the API and Events stay home', () => {
    const { cluster, home, impersonated } = parts();
    const ctx = actingAs(home, releaseTarget(release('deployer')), cluster);
    expect(impersonated).toEqual(['system:serviceaccount:apps:deployer']);
    expect(ctx).toMatchObject({
      storage: { name: 'edge records read by edge kube as system:serviceaccount:apps:deployer' },
      helm: { name: 'edge helm' },
      drift: { name: 'edge drift' },
      crds: { name: 'edge crds' },
      kube: { name: 'home kube' },
      api: { name: 'home api' },
      events: { name: 'home events' },
    });
  });

  it('no ServiceAccount: the kubeconfig’s own user there', () => {
    const { cluster, home, impersonated } = parts();
    expect(actingAs(home, releaseTarget(release()), cluster).storage).toEqual({ name: 'edge records read by edge kube as kubeconfig user' });
    expect(impersonated).toEqual([undefined]);
  });

  it('a controller without drift detection or a CRD policy gets none on the target either', () => {
    const { cluster, home } = parts();
    const ctx = actingAs({ ...home, drift: undefined, crds: undefined }, releaseTarget(release()), cluster);
    expect(ctx.drift).toBeUndefined();
    expect(ctx.crds).toBeUndefined();
  });
});
