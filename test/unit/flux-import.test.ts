import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADOPT_FROM_FLUX_ANNOTATION, ADOPT_RELEASE_ANNOTATION } from '../../src/api/annotations.js';
import { parseImportArgs, releasesInNamespace } from '../../src/cli/commands/import.js';
import { FLUX_FIELDS, renderFieldTable } from '../../src/cli/import/flux/field-table.js';
import { indexSources, type FluxObject } from '../../src/cli/import/flux/flux-objects.js';
import { fluxReleaseTarget, mapFluxRelease, shortenName } from '../../src/cli/import/flux/map-release.js';
import { parseFluxYaml } from '../../src/cli/import/flux/read-flux.js';
import { renderReport } from '../../src/cli/import/flux/report.js';
import { fitToSchema } from '../../src/cli/import/schema-fit.js';

// Shaped like Flux's own documentation examples (helm-controller v1.6.3 docs/spec/v2/helmreleases.md,
// source-controller v1.9.1 docs/spec/v1/*.md).
const FLUX = `
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: { name: podinfo, namespace: flux-system }
spec:
  interval: 5m
  url: https://stefanprodan.github.io/podinfo/
  secretRef: { name: repo-auth }
  certSecretRef: { name: repo-tls }
  passCredentials: true
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: { name: bitnami, namespace: apps }
spec:
  type: oci
  interval: 5m
  url: oci://registry-1.docker.io/bitnamicharts
  provider: aws
  insecure: true
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata: { name: redis, namespace: apps }
spec:
  interval: 10m
  url: oci://ghcr.io/charts/redis
  ref: { tag: 18.1.0, digest: "sha256:0123456789abcdef" }
  secretRef: { name: ghcr }
  verify: { provider: cosign, secretRef: { name: redis-keys } }
  layerSelector: { mediaType: application/vnd.cncf.helm.chart.content.v1.tar+gzip, operation: copy }
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: { name: platform, namespace: apps }
spec:
  interval: 1m
  url: ssh://git@git.example.com/platform.git
  ref: { tag: v1.2.0 }
  secretRef: { name: git-ssh }
  recurseSubmodules: true
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmChart
metadata: { name: apps-shared, namespace: apps }
spec:
  chart: podinfo
  version: ">=6.0.0 <7.0.0"
  sourceRef: { kind: HelmRepository, name: podinfo, namespace: flux-system }
  interval: 10m
  valuesFiles: [values.yaml, values-prod.yaml]
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: apps
  labels: { team: web, kustomize.toolkit.fluxcd.io/name: apps }
  annotations: { reconcile.fluxcd.io/requestedAt: "2026-11-25T10:00:00Z" }
spec:
  interval: 10m
  timeout: 4m
  maxHistory: 3
  serviceAccountName: deployer
  chart:
    spec:
      chart: podinfo
      version: 6.x
      sourceRef: { kind: HelmRepository, name: podinfo, namespace: flux-system }
      interval: 1h
      verify: { provider: cosign }
  install:
    remediation: { retries: 3 }
    createNamespace: true
    disableOpenAPIValidation: true
  upgrade:
    remediation: { retries: -1, strategy: uninstall, remediateLastFailure: false }
    force: true
  test: { enable: true, ignoreFailures: true, timeout: 2m }
  uninstall: { keepHistory: true, timeout: 3m }
  dependsOn: [{ name: redis }, { name: certs, namespace: infra, readyExpr: "dep.status.ready" }]
  driftDetection:
    mode: warn
    ignore:
      - paths: ["/spec/replicas"]
        target: { kind: Deployment, name: podinfo, labelSelector: app=podinfo }
  values: { replicaCount: 2, ingress: { enabled: true } }
  valuesFrom:
    - { kind: ConfigMap, name: common-values }
    - { kind: Secret, name: tls, valuesKey: tls.crt, targetPath: ingress.tls.crt }
  kubeConfig: { secretRef: { name: remote } }
  persistentClient: true
  waitStrategy: { name: poller }
  healthCheckExprs: [{ apiVersion: example.com/v1, kind: Widget, current: "status.ready" }]
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: { name: postgres, namespace: apps }
spec:
  interval: 10m
  targetNamespace: databases
  storageNamespace: databases
  chart:
    spec: { chart: postgresql, version: 15.2.0, sourceRef: { kind: HelmRepository, name: bitnami } }
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: { name: redis, namespace: apps }
spec:
  interval: 10m
  targetNamespace: cache
  chartRef: { kind: OCIRepository, name: redis }
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: { name: shared, namespace: apps }
spec:
  interval: 10m
  chartRef: { kind: HelmChart, name: apps-shared }
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: { name: platform, namespace: apps }
spec:
  interval: 10m
  chart:
    spec: { chart: ./charts/platform, version: "*", sourceRef: { kind: GitRepository, name: platform } }
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: { name: orphan, namespace: apps }
spec:
  interval: 10m
  chart:
    spec: { chart: thing, sourceRef: { kind: HelmRepository, name: missing } }
`;

const objects = parseFluxYaml(FLUX, 'flux.yaml');
const sources = indexSources(objects, 'default');
const find = (name: string) => objects.find((o) => o.kind === 'HelmRelease' && o.metadata.name === name)!;
const imported = (name: string) => mapFluxRelease(find(name), sources);
const noteFor = (name: string, path: string) => imported(name).notes.find((n) => n.path === path)?.reason;

describe('Flux HelmRelease → helmcrew HelmRelease (pure)', () => {
  it('resolves a HelmRepository into the inline chart and carries every field helmcrew has under its name', () => {
    const { release } = imported('podinfo');
    expect(release?.apiVersion).toBe('helmcrew.dev/v1alpha1');
    expect(release?.metadata).toEqual({
      name: 'podinfo',
      namespace: 'apps',
      labels: { team: 'web' },
      annotations: { [ADOPT_RELEASE_ANNOTATION]: 'apps/podinfo', [ADOPT_FROM_FLUX_ANNOTATION]: 'apps/podinfo' },
    });
    expect(release?.spec.chart).toEqual({
      repository: 'https://stefanprodan.github.io/podinfo',
      name: 'podinfo',
      version: '6.x',
      secretRef: { name: 'repo-auth' },
      certSecretRef: { name: 'repo-tls' },
    });
    expect(release?.spec).toMatchObject({
      releaseName: 'podinfo',
      interval: '10m',
      timeout: '4m',
      maxHistory: 3,
      serviceAccountName: 'deployer',
      install: { remediation: { retries: 3 }, createNamespace: true },
      upgrade: { remediation: { retries: -1, strategy: 'uninstall', remediateLastFailure: false }, force: true },
      test: { enable: true, ignoreFailures: true, timeout: '2m' },
      uninstall: { keepHistory: true, timeout: '3m' },
      driftDetection: { mode: 'warn', ignore: [{ paths: ['/spec/replicas'], target: { kind: 'Deployment', name: 'podinfo' } }] },
      values: { replicaCount: 2, ingress: { enabled: true } },
    });
    expect(release?.spec.dependsOn?.[0]).toEqual({ name: 'redis' });
  });

  it('reports every Flux field it does not carry, with its path and why', () => {
    const reasons = Object.fromEntries(imported('podinfo').notes.map((n) => [n.path, n.reason]));
    expect(reasons['spec.kubeConfig']).toBeUndefined();
    expect(reasons['spec.persistentClient']).toMatch(/^handled differently: every helm action is its own process/);
    expect(reasons['spec.waitStrategy']).toMatch(/^handled differently: helmcrew always waits with kstatus/);
    expect(reasons['spec.healthCheckExprs']).toBeUndefined();
    expect(reasons['spec.install.disableOpenAPIValidation']).toMatch(/^handled differently: helmcrew always skips helm's client-side OpenAPI check/);
    // podinfo's chart comes from an https repository: Flux verifies only OCI charts, and so does this.
    expect(reasons['spec.chart.spec.verify']).toBe('cannot be carried: verify is for oci:// charts (Flux verifies only those too)');
    expect(reasons['spec.chart.spec.interval']).toMatch(/^handled differently/);
    expect(reasons['HelmRepository flux-system/podinfo spec.passCredentials']).toBe('helmcrew has no equivalent');
    expect(reasons['spec.driftDetection.ignore[0].target.labelSelector']).toMatch(/now ignores more objects/);
    expect(reasons['metadata.annotations.reconcile.fluxcd.io/requestedAt']).toMatch(/helmcrew.dev\/requestedAt/);
    // A source in another namespace: its Secrets must be copied (carried, but flagged).
    const copy = imported('podinfo').notes.find((n) => n.path === 'HelmRepository flux-system/podinfo spec.secretRef');
    expect(copy).toMatchObject({ attention: true, reason: expect.stringContaining('copy Secret flux-system/repo-auth to apps') as unknown });
  });

  it('a field whose schema helmcrew gains later carries with no change to the mapping', () => {
    // Whatever helmcrew's schema has now, dependsOn[].readyExpr is either carried or reported: never silently lost.
    const { release, notes } = imported('podinfo');
    const carried = release?.spec.dependsOn?.[1] && 'readyExpr' in release.spec.dependsOn[1];
    const reported = notes.some((n) => n.path === 'spec.dependsOn[1].readyExpr');
    expect(carried !== reported).toBe(true);
  });

  it('carries healthCheckExprs and dependsOn[].readyExpr (issue 34)', () => {
    const { release, notes } = imported('podinfo');
    expect(release?.spec.healthCheckExprs).toEqual([{ apiVersion: 'example.com/v1', kind: 'Widget', current: 'status.ready' }]);
    expect(release?.spec.dependsOn?.[1]).toEqual({ name: 'certs', namespace: 'infra', readyExpr: 'dep.status.ready' });
    expect(notes.filter((n) => n.path.startsWith('spec.healthCheckExprs') || n.path.includes('readyExpr'))).toEqual([]);
  });

  it('drops a valuesFrom entry whole when helmcrew cannot carry its targetPath (else the key would become the whole values)', () => {
    const { release, notes } = imported('podinfo');
    const targetPathKnown = release?.spec.valuesFrom?.some((v) => 'targetPath' in v);
    if (targetPathKnown) {
      expect(release?.spec.valuesFrom?.[1]).toMatchObject({ kind: 'Secret', name: 'tls', valuesKey: 'tls.crt', targetPath: 'ingress.tls.crt' });
    } else {
      expect(release?.spec.valuesFrom).toEqual([{ kind: 'ConfigMap', name: 'common-values' }]);
      expect(notes.find((n) => n.path === 'spec.valuesFrom[1]')?.reason).toMatch(/^not carried as a whole: helmcrew has no targetPath/);
    }
  });

  it('an oci HelmRepository becomes an oci:// repository; credentials come along, workload identity does not', () => {
    const { release } = imported('postgres');
    expect(release?.spec.chart).toEqual({ repository: 'oci://registry-1.docker.io/bitnamicharts', name: 'postgresql', version: '15.2.0', insecure: true });
    expect(release?.spec.targetNamespace).toBe('databases');
    // Flux's default release name is <targetNamespace>-<name>; helmcrew's is metadata.name, so it is written.
    expect(release?.spec.releaseName).toBe('databases-postgres');
    expect(release?.spec.maxHistory).toBe(5);
    expect(release?.metadata.annotations?.[ADOPT_RELEASE_ANNOTATION]).toBe('databases/databases-postgres');
    expect(noteFor('postgres', 'HelmRepository apps/bitnami spec.provider')).toMatch(/no cloud workload identity/);
  });

  it('chartRef to an OCIRepository: repository, name and version from its url and ref, verify carried; the digest is reported', () => {
    const { release, notes } = imported('redis');
    expect(release?.spec.chart).toEqual({
      repository: 'oci://ghcr.io/charts',
      name: 'redis',
      version: '18.1.0',
      secretRef: { name: 'ghcr' },
      // helm's chart layer: carried as it is.
      layerSelector: { mediaType: 'application/vnd.cncf.helm.chart.content.v1.tar+gzip', operation: 'copy' },
      verify: { provider: 'cosign', secretRef: { name: 'redis-keys' } },
    });
    expect(notes.map((n) => n.path)).toEqual(expect.arrayContaining(['OCIRepository apps/redis spec.ref.digest', 'OCIRepository apps/redis spec.interval']));
    expect(notes.map((n) => n.path)).not.toContain('OCIRepository apps/redis spec.layerSelector');
    expect(notes.map((n) => n.path)).not.toContain('OCIRepository apps/redis spec.verify');
  });

  it('proxySecretRef (every source kind), semverFilter; a layerSelector of another layer is reported, not carried', () => {
    const yaml = `
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata: { name: web, namespace: apps }
spec:
  url: oci://ghcr.io/charts/web
  ref: { semver: ">=1.0.0-0", semverFilter: ".*-rc.*" }
  proxySecretRef: { name: corp-proxy }
  layerSelector: { mediaType: application/vnd.example.manifests.v1.tar+gzip, operation: extract }
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: { name: podinfo, namespace: apps }
spec: { url: https://charts.example.org, proxySecretRef: { name: corp-proxy } }
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: { name: platform, namespace: flux-system }
spec: { url: https://git.example.org/platform.git, proxySecretRef: { name: corp-proxy } }
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: { name: web, namespace: apps }
spec: { chartRef: { kind: OCIRepository, name: web } }
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: { name: podinfo, namespace: apps }
spec: { chart: { spec: { chart: podinfo, sourceRef: { kind: HelmRepository, name: podinfo } } } }
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: { name: platform, namespace: apps }
spec: { chart: { spec: { chart: ./charts/platform, sourceRef: { kind: GitRepository, name: platform, namespace: flux-system } } } }
`;
    const objs = parseFluxYaml(yaml, 'proxy.yaml');
    const index = indexSources(objs, 'default');
    const map = (name: string) =>
      mapFluxRelease(
        objs.find((o) => o.kind === 'HelmRelease' && o.metadata.name === name)!,
        index,
      );
    const web = map('web');
    expect(web.release?.spec.chart).toEqual({
      repository: 'oci://ghcr.io/charts',
      name: 'web',
      version: '>=1.0.0-0',
      semverFilter: '.*-rc.*',
      proxySecretRef: { name: 'corp-proxy' },
    });
    expect(web.notes.find((n) => n.path === 'OCIRepository apps/web spec.layerSelector')?.reason).toMatch(
      /cannot be carried: it selects "application\/vnd.example.manifests.v1.tar\+gzip", and the helm CLI installs only the chart layer/,
    );
    expect(map('podinfo').release?.spec.chart).toMatchObject({ repository: 'https://charts.example.org', proxySecretRef: { name: 'corp-proxy' } });
    const platform = map('platform');
    expect(platform.release?.spec.chart.git).toMatchObject({ url: 'https://git.example.org/platform.git', proxySecretRef: { name: 'corp-proxy' } });
    expect(platform.notes.find((n) => n.path === 'GitRepository flux-system/platform spec.proxySecretRef')).toMatchObject({ attention: true });
  });

  it('records kept in the HelmRelease namespace while the release is elsewhere: no handover, and the report says why', () => {
    const { release } = imported('redis');
    expect(release?.metadata.annotations).toBeUndefined();
    expect(noteFor('redis', 'spec.storageNamespace (Flux default: the HelmRelease namespace)')).toContain(
      "Flux keeps this release's records in apps, helmcrew in cache; no handover is named",
    );
  });

  it('records moved by --move-records: the handover is named, and the report says where they went', () => {
    const moved = mapFluxRelease(find('redis'), sources, { movedRecords: new Map([['HelmRelease apps/redis', [1, 2]]]) });
    expect(moved.release?.metadata.annotations).toMatchObject({
      'helmcrew.dev/adopt-release': 'cache/cache-redis',
      'helmcrew.dev/adopt-from-flux': 'apps/redis',
    });
    expect(moved.release?.spec).not.toHaveProperty('storageNamespace');
    expect(moved.notes).toContainEqual({
      path: 'spec.storageNamespace',
      reason: 'records moved from apps to cache (revisions 1, 2), where helm keeps them; the Flux HelmRelease must stay suspended until it is deleted',
      attention: true,
    });
  });

  it('chartRef to a HelmChart follows it to its source', () => {
    const { release } = imported('shared');
    expect(release?.spec.chart).toMatchObject({ repository: 'https://stefanprodan.github.io/podinfo', name: 'podinfo', version: '>=6.0.0 <7.0.0' });
    const valuesFilesKnown = release?.spec.chart && 'valuesFiles' in release.spec.chart;
    if (!valuesFilesKnown)
      expect(noteFor('shared', 'spec.chart.valuesFiles (from HelmChart apps/apps-shared → HelmRepository flux-system/podinfo)')).toBeDefined();
  });

  it('a GitRepository chart is emitted as spec.chart.git {url, ref, path, secretRef, interval}, or reported while helmcrew lacks it', () => {
    const result = imported('platform');
    const git = (result.release?.spec.chart as { git?: unknown } | undefined)?.git;
    if (git) {
      expect(result.release?.spec.chart.name).toBe('platform');
      expect(git).toEqual({
        url: 'ssh://git@git.example.com/platform.git',
        ref: { tag: 'v1.2.0' },
        path: 'charts/platform',
        secretRef: { name: 'git-ssh' },
        interval: '1m',
        recurseSubmodules: true,
      });
    } else {
      expect(result.release).toBeUndefined();
      expect(result.notes.map((n) => n.path)).toContain('spec.chart.git (from GitRepository apps/platform)');
    }
    expect(noteFor('platform', 'GitRepository apps/platform spec.recurseSubmodules')).toBeUndefined();
  });

  it('a missing source makes no HelmRelease, and says which', () => {
    const result = imported('orphan');
    expect(result.release).toBeUndefined();
    expect(noteFor('orphan', 'spec.chart.spec.sourceRef')).toBe('cannot be carried: HelmRepository apps/missing was not found');
    expect(renderReport([result])).toContain('HelmRelease apps/orphan → NOT imported');
  });

  it('leaves the Flux objects it reads as they were', () => {
    const before = JSON.stringify(objects);
    imported('podinfo');
    imported('podinfo');
    expect(JSON.stringify(objects)).toBe(before);
  });

  it('a suspended Flux HelmRelease (the first step of the move) is imported active, and the report says so', () => {
    const suspended = { ...find('podinfo'), spec: { ...find('podinfo').spec, suspend: true } };
    const result = mapFluxRelease(suspended, sources);
    expect(result.release?.spec.suspend).toBeUndefined();
    expect(result.notes.find((n) => n.path === 'spec.suspend')).toMatchObject({ attention: true });
  });

  it('carries spec.kubeConfig.secretRef (issue 32): the release goes on installing into the same other cluster', () => {
    expect(imported('podinfo').release?.spec.kubeConfig).toEqual({ secretRef: { name: 'remote' } });
    const withKey = { ...find('podinfo'), spec: { ...find('podinfo').spec, kubeConfig: { secretRef: { name: 'prod', key: 'value.yaml' } } } };
    expect(mapFluxRelease(withKey, sources).release?.spec.kubeConfig).toEqual({ secretRef: { name: 'prod', key: 'value.yaml' } });
  });

  it('a release reaching its cluster by workload identity (configMapRef) is not carried, and the report says why', () => {
    const byIdentity = { ...find('podinfo'), spec: { ...find('podinfo').spec, kubeConfig: { configMapRef: { name: 'eks-prod' } } } };
    const result = mapFluxRelease(byIdentity, sources);
    expect(result.release).toBeUndefined();
    const reasons = Object.fromEntries(result.notes.map((n) => [n.path, n.reason]));
    expect(reasons['spec.kubeConfig.configMapRef']).toMatch(/^helmcrew has no equivalent: no workload identity for target clusters/);
    expect(reasons['spec.kubeConfig']).toMatch(/without spec.kubeConfig it would install into this cluster/);
  });

  it('--no-handover leaves the annotations out', () => {
    expect(mapFluxRelease(find('podinfo'), sources, { handover: false }).release?.metadata.annotations).toBeUndefined();
  });

  it("computes Flux's release name and storage as helm-controller does", () => {
    const long: FluxObject = {
      apiVersion: 'helm.toolkit.fluxcd.io/v2',
      kind: 'HelmRelease',
      metadata: { name: 'a'.repeat(40), namespace: 'x' },
      spec: { targetNamespace: 'some-long-namespace' },
    };
    const target = fluxReleaseTarget(long);
    expect(target.releaseName).toHaveLength(53);
    expect(target.releaseName).toBe(shortenName(`some-long-namespace-${'a'.repeat(40)}`));
    // helm-controller's ShortenName: the first 40 characters, "-", 12 hex of the sha256.
    expect(target.releaseName).toMatch(/^some-long-namespace-a{20}-[0-9a-f]{12}$/);
    expect(target).toMatchObject({ namespace: 'some-long-namespace', storageNamespace: 'x' });
  });

  it('the report lists every HelmRelease with what was not carried', () => {
    const text = renderReport([imported('podinfo'), imported('orphan')]);
    expect(text).toContain('HelmRelease apps/podinfo → helmcrew HelmRelease apps/podinfo (takes over Helm release apps/podinfo)');
    expect(text).toContain('  not carried: spec.persistentClient: handled differently: every helm action is its own process');
    expect(text).toContain('  check: HelmRepository flux-system/podinfo spec.secretRef:');
  });
});

describe('fitting to the schema', () => {
  it('drops unknown fields and values the schema refuses, each with its path', () => {
    const schema = {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', pattern: '^[a-z]+$' },
        n: { type: 'integer', maximum: 3 },
        list: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
      },
    };
    const fitted = fitToSchema({ name: 'ok', n: 9, extra: 1, list: [{ a: 'x', b: 2 }] }, schema, 'spec');
    expect(fitted.value).toEqual({ name: 'ok', list: [{ a: 'x' }] });
    expect(fitted.misfits.map((m) => [m.path, m.kind, m.detail])).toEqual([
      ['spec.n', 'invalid', 'at most 3'],
      ['spec.extra', 'unknown', undefined],
      ['spec.list[0].b', 'unknown', undefined],
    ]);
    expect(fitToSchema({ name: 'NO' }, schema, 'spec').value).toBeUndefined();
  });
});

describe('the command line', () => {
  it('reads -f, -n, --apply and --no-handover, and refuses the rest clearly', () => {
    expect(parseImportArgs(['flux', '-f', 'a.yaml', '-f', '-', '-n', 'apps', '--apply', '--no-handover'])).toEqual({
      files: ['a.yaml', '-'],
      namespace: 'apps',
      apply: true,
      handover: false,
      moveRecords: false,
    });
    expect(parseImportArgs(['flux', '-n', 'apps', '--move-records'])).toMatchObject({ moveRecords: true, handover: true });
    expect(parseImportArgs(['flux', '--move-records', '--no-handover'])).toMatch(/--move-records hands the releases over; it cannot go with --no-handover/);
    expect(parseImportArgs(['argo'])).toMatch(/only "flux" can be imported from/);
    expect(parseImportArgs(['flux', '-f'])).toMatch(/-f needs a value/);
    expect(parseImportArgs(['flux', '--bogus'])).toMatch(/unknown argument "--bogus"/);
  });

  it.each([['flux', '--help'], ['flux', '-h'], ['flux', '-f', 'a.yaml', '--help'], ['--help'], ['help'], []])('%j is the usage, not an error', (...args) => {
    const parsed = parseImportArgs(args);
    expect(parsed).toEqual({ help: expect.stringMatching(/^usage: helmcrew import flux /) });
  });

  it('-n whose files hold releases only elsewhere names what it skipped', () => {
    const flux = (namespace: string | undefined, name: string) => ({
      apiVersion: 'helm.toolkit.fluxcd.io/v2',
      kind: 'HelmRelease',
      metadata: { name, ...(namespace ? { namespace } : {}) },
      spec: {},
    });
    const picked = releasesInNamespace([flux('apps', 'podinfo'), flux(undefined, 'web'), flux('shop', 'cart')], 'shop', 'default');
    expect(picked).toEqual({ selected: [flux('shop', 'cart')], skipped: ['apps/podinfo', 'default/web'] });
    const none = releasesInNamespace([flux('apps', 'podinfo')], 'prod', 'default');
    expect(renderReport([], { namespace: 'prod', skipped: none.skipped })).toBe(
      'no Flux HelmRelease in namespace prod (-n); skipped 1 in other namespaces: HelmRelease apps/podinfo\n',
    );
    expect(renderReport([], { namespace: 'prod', skipped: [] })).toBe('no Flux HelmRelease found in namespace prod\n');
    expect(renderReport([])).toBe('no Flux HelmRelease found\n');
  });

  it('refuses a document that is not a Kubernetes object', () => {
    expect(() => parseFluxYaml('just: text\n', 'x.yaml')).toThrow('x.yaml: document 1 is not a Kubernetes object');
  });
});

describe('docs/flux-import.md', () => {
  it('holds the field table the code uses (regenerate: npx tsx test/support/flux-field-table.ts)', () => {
    const doc = readFileSync(new URL('../../docs/flux-import.md', import.meta.url), 'utf8');
    const table = /<!-- flux-fields:start -->\n([\s\S]*?)<!-- flux-fields:end -->/.exec(doc)?.[1];
    expect(table).toBe(renderFieldTable());
    expect(FLUX_FIELDS.length).toBeGreaterThan(50);
  });
});
