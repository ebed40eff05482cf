import { describe, expect, it } from 'vitest';
import { API_GROUP, API_VERSION, HELMRELEASE_PLURAL } from '../../src/api/vocabulary.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { apiErrorMessage, apiStatusCode } from '../../src/core/kube/errors.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';

/** Issue 2, shown 5: the API server refuses malformed objects; the controller reports bad charts and values. */
describe('bad input', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const { namespace, ctl } = namespaceWithController('bad');

  const chart = () => ({ repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' });
  const create = (name: string, spec: unknown) =>
    kube.custom.createNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: HELMRELEASE_PLURAL,
      namespace,
      body: { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: 'HelmRelease', metadata: { name, namespace }, ...(spec === undefined ? {} : { spec }) },
    });

  it.each([
    { name: 'no-spec', spec: undefined, want: /spec: Required value/ },
    { name: 'no-chart', spec: { interval: '5m' }, want: /spec.chart: Required value/ },
    { name: 'no-chart-name', spec: { chart: { repository: 'https://charts.example.test' } }, want: /spec.chart.name: Required value/ },
    {
      name: 'ftp-repo',
      spec: { chart: { repository: 'ftp://charts.example.test', name: 'unicorn' } },
      want: /spec.chart.repository: Invalid value.*should match/,
    },
    { name: 'no-source', spec: { chart: { name: 'unicorn' } }, want: /give exactly one of repository \(with name\) or git/ },
    {
      name: 'both-sources',
      spec: { chart: { ...chart(), git: { url: 'https://git.example.test/c.git' } } },
      want: /give exactly one of repository \(with name\) or git/,
    },
    {
      name: 'other-layer',
      spec: { chart: { repository: 'oci://registry.example.test/charts', name: 'unicorn', layerSelector: { mediaType: 'application/vnd.example.manifests' } } },
      want: /spec.chart.layerSelector.mediaType: Invalid value.*helm installs only the chart layer/,
    },
    {
      name: 'layer-of-http',
      spec: { chart: { ...chart(), layerSelector: { mediaType: 'application/vnd.cncf.helm.chart.content.v1.tar+gzip' } } },
      want: /layerSelector is for oci:\/\/ repositories/,
    },
    {
      name: 'git-two-refs',
      spec: { chart: { name: 'unicorn', git: { url: 'https://git.example.test/c.git', ref: { branch: 'main', tag: 'v1' } } } },
      want: /spec.chart.git.ref: Invalid value.*give at most one of branch, tag, semver, commit/,
    },
    {
      name: 'pgp-on-oci',
      spec: { chart: { repository: 'oci://r.example.test/charts', name: 'unicorn', verify: { provider: 'pgp', secretRef: { name: 'keys' } } } },
      want: /pgp \(helm provenance\) is for http\(s\) repository charts; a git chart is verified by git.verify/,
    },
    {
      name: 'git-ref-name-and-branch',
      spec: { chart: { name: 'unicorn', git: { url: 'https://git.example.test/c.git', ref: { branch: 'main', name: 'refs/heads/main' } } } },
      want: /give at most one of branch, tag, semver, commit, name/,
    },
    {
      name: 'git-ref-name-dotdot',
      spec: { chart: { name: 'unicorn', git: { url: 'https://git.example.test/c.git', ref: { name: 'refs/heads/../x' } } } },
      want: /must be a full reference name/,
    },
    {
      name: 'git-password-in-url',
      spec: { chart: { name: 'unicorn', git: { url: 'https://u:secret@git.example.test/c.git' } } },
      want: /spec.chart.git.url: Invalid value.*must not carry a password/,
    },
    {
      name: 'git-path-escapes',
      spec: { chart: { name: 'unicorn', git: { url: 'https://git.example.test/c.git', path: 'charts/../../etc' } } },
      want: /spec.chart.git.path: Invalid value.*must stay inside the repository/,
    },
    {
      name: 'verify-cosign-on-https',
      spec: { chart: { ...chart(), verify: { provider: 'cosign', secretRef: { name: 'keys' } } } },
      want: /spec.chart.verify: Invalid value.*cosign and notation verify oci:\/\/ charts, pgp http\(s\) repository charts/,
    },
    {
      name: 'verify-notation-on-git',
      spec: {
        chart: { name: 'unicorn', git: { url: 'https://git.example.test/c.git' }, verify: { provider: 'notation', secretRef: { name: 'keys' } } },
      },
      want: /spec.chart.verify: Invalid value.*cosign and notation verify oci:\/\/ charts/,
    },
    {
      name: 'allow-unsigned-without-verify',
      spec: {
        chart: chart(),
        imageUpdates: [{ repository: 'registry.example.test/web', policy: { semver: '1.x' }, valuesPath: 'image.tag', allowUnsigned: true }],
      },
      want: /allowUnsigned goes with verify/,
    },
    { name: 'bad-interval', spec: { chart: chart(), interval: 'ten minutes' }, want: /spec.interval: Invalid value: "ten minutes"/ },
    { name: 'bad-timeout', spec: { chart: chart(), timeout: '5 min' }, want: /spec.timeout: Invalid value/ },
    { name: 'upper-release', spec: { chart: chart(), releaseName: 'Unicorn' }, want: /spec.releaseName: Invalid value: "Unicorn"/ },
    { name: 'long-release', spec: { chart: chart(), releaseName: 'u'.repeat(54) }, want: /spec.releaseName: Too long/ },
    {
      name: 'values-string',
      spec: { chart: chart(), values: 'color=pink' },
      want: /spec.values: Invalid value: "string": spec.values in body must be of type object/,
    },
    {
      name: 'values-from-kind',
      spec: { chart: chart(), valuesFrom: [{ kind: 'Deployment', name: 'x' }] },
      want: /spec.valuesFrom\[0\].kind: Unsupported value: "Deployment"/,
    },
    { name: 'negative-history', spec: { chart: chart(), maxHistory: -1 }, want: /spec.maxHistory: Invalid value: -1/ },
    { name: 'suspend-yes', spec: { chart: chart(), suspend: 'yes' }, want: /spec.suspend: Invalid value: "string"/ },
    {
      name: 'insecure-http',
      spec: { chart: { repository: 'https://charts.example.test', name: 'unicorn', insecure: true } },
      want: /spec.chart.insecure: Invalid value.*insecure \(plain HTTP\) is for oci:\/\/ registries/,
    },
    {
      name: 'secret-ref-name',
      spec: { chart: { repository: 'oci://registry.example.test/charts', name: 'unicorn', secretRef: { name: 'Creds' } } },
      want: /spec.chart.secretRef.name: Invalid value: "Creds"/,
    },
    { name: 'n'.repeat(54), spec: { chart: chart() }, want: /longer than the 53 characters a Helm release name allows/ },
  ])('$name is refused: $want', async ({ name, spec, want }) => {
    const error = await create(name, spec).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error, 'the API server accepted a malformed HelmRelease').toBeDefined();
    expect(apiStatusCode(error)).toBe(422);
    expect(apiErrorMessage(error)).toMatch(want);
  });

  it('releaseName cannot change after creation', async () => {
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'fixed-name', { chart: chart(), releaseName: 'first', suspend: true }));
    const error = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'fixed-name', { chart: chart(), releaseName: 'second', suspend: true })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(apiErrorMessage(error)).toMatch(/releaseName is immutable/);
  });

  it('a chart version that does not exist → Ready=False ChartPullFailed, while another release installs', async () => {
    const missingGen = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'missing', { chart: { ...chart(), version: '9.9.9' } }));
    const wrongChartGen = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'nochart', { chart: { ...chart(), name: 'narwhal', version: '2.x' } }),
    );
    const goodGen = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'healthy', { chart: chart() }));

    const good = await waitForReconciled(kubeConfig, namespace, 'healthy', goodGen);
    expect(good.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');

    for (const [name, generation, want] of [
      ['missing', missingGen, /9\.9\.9/],
      ['nochart', wrongChartGen, /narwhal/],
    ] as const) {
      const ready = await eventually(
        async () => {
          const found = (await api.get(namespace, name))?.status?.conditions?.find((c) => c.type === 'Ready');
          expect(found).toMatchObject({ status: 'False', reason: 'ChartPullFailed', observedGeneration: generation });
          return found;
        },
        { timeoutMs: 30_000 },
      );
      expect(ready?.message).toMatch(want);
    }
  });

  it('values from a ConfigMap that does not exist → Ready=False ValuesInvalid naming it', async () => {
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'novalues', { chart: chart(), valuesFrom: [{ kind: 'ConfigMap', name: 'unicorn-values' }] }),
    );
    const release = await waitForReconciled(kubeConfig, namespace, 'novalues', generation);
    expect(release.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ValuesInvalid',
      message: expect.stringMatching(/ConfigMap .*\/unicorn-values not found/),
    });
    expect(ctl.controller.ready()).toBe(true);
  });
});
