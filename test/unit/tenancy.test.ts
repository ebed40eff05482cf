import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { ConfigError } from '../../src/core/config/env.js';
import { readControllerConfig } from '../../src/controller/config.js';
import { KubeConfig } from '@kubernetes/client-node';
import { summarizeHistory, type StoredRelease } from '../../src/core/helm-storage/release-storage.js';
import { impersonatingConfig } from '../../src/core/kube/client.js';
import {
  determineOwnership,
  labelValueFor,
  OWNER_NAME_LABEL,
  OWNER_NAMESPACE_LABEL,
  recordedTimeoutSeconds,
  releaseLabels,
  TIMEOUT_LABEL,
} from '../../src/controller/reconcile/decide/ownership.js';
import { releaseTarget } from '../../src/core/release/release-target.js';
import { checkTenancy, serviceAccountUser } from '../../src/controller/reconcile/decide/tenancy.js';

const hr = (spec: Partial<HelmRelease['spec']> = {}, status?: HelmRelease['status'], name = 'shop'): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name, namespace: 'team-a', generation: 1 },
  spec: { chart: { repository: 'https://charts.example.test', name: 'unicorn' }, ...spec },
  status,
});

const record = (labels?: Record<string, string>, status: StoredRelease['status'] = 'deployed'): StoredRelease => ({
  name: 'shop',
  namespace: 'team-a',
  revision: 1,
  status,
  chartName: 'unicorn',
  chartVersion: '1.0.0',
  config: {},
  labels,
});
const ownedBy = (namespace: string, name: string) => ({ owner: 'helm', [OWNER_NAMESPACE_LABEL]: namespace, [OWNER_NAME_LABEL]: name });

describe('tenancy settings from the environment', () => {
  const base = { REDIS_URL: 'redis://x' };
  it('default: safe — no cluster scope anywhere, no cross-namespace references, helmcrew’s managed identity', () => {
    expect(readControllerConfig(base).tenancy).toEqual({ defaultServiceAccount: undefined, clusterScopeNamespaces: [], allowCrossNamespaceTargets: false });
  });
  it('lock-down with the operator’s own ServiceAccount', () => {
    const config = readControllerConfig({ ...base, HELMCREW_DEFAULT_SERVICE_ACCOUNT: 'helm-deployer', HELMCREW_ALLOW_CROSS_NAMESPACE_TARGETS: 'false' });
    expect(config.tenancy).toEqual({ defaultServiceAccount: 'helm-deployer', clusterScopeNamespaces: [], allowCrossNamespaceTargets: false });
  });
  it('cluster scope for named namespaces, and the old behaviour', () => {
    expect(readControllerConfig({ ...base, HELMCREW_CLUSTER_SCOPE_NAMESPACES: 'platform, cert-manager' }).tenancy.clusterScopeNamespaces).toEqual([
      'platform',
      'cert-manager',
    ]);
    expect(readControllerConfig({ ...base, HELMCREW_CLUSTER_SCOPE_NAMESPACES: '*', HELMCREW_ALLOW_CROSS_NAMESPACE_TARGETS: 'true' }).tenancy).toMatchObject({
      clusterScopeNamespaces: ['*'],
      allowCrossNamespaceTargets: true,
    });
  });
  it.each([
    [{ HELMCREW_DEFAULT_SERVICE_ACCOUNT: 'Helm Deployer' }, /HELMCREW_DEFAULT_SERVICE_ACCOUNT must be a ServiceAccount name .*got "Helm Deployer"/],
    [{ HELMCREW_DEFAULT_SERVICE_ACCOUNT: 'system:serviceaccount:a:b' }, /HELMCREW_DEFAULT_SERVICE_ACCOUNT must be a ServiceAccount name/],
    [{ HELMCREW_ALLOW_CROSS_NAMESPACE_TARGETS: 'no' }, /HELMCREW_ALLOW_CROSS_NAMESPACE_TARGETS must be "true" or "false", got "no"/],
    [{ HELMCREW_CLUSTER_SCOPE_NAMESPACES: 'platform,Kube System' }, /HELMCREW_CLUSTER_SCOPE_NAMESPACES must list namespace names .*"Kube System" is not one/],
  ])('%j → %s', (env, want) => {
    expect(() => readControllerConfig({ ...base, ...env })).toThrow(ConfigError);
    expect(() => readControllerConfig({ ...base, ...env })).toThrow(want);
  });
});

describe('who a HelmRelease acts as, and where it may install', () => {
  const locked = { defaultServiceAccount: 'deployer', allowCrossNamespaceTargets: false };
  const safe = { allowCrossNamespaceTargets: false };
  const platform = { allowCrossNamespaceTargets: false, clusterScopeNamespaces: ['platform', 'team-a'] };
  const open = { allowCrossNamespaceTargets: true, clusterScopeNamespaces: ['*'] };
  it.each([
    {
      name: 'defaults, no SA: helmcrew’s managed one of its namespace',
      spec: {},
      policy: safe,
      kind: 'managed',
      want: 'system:serviceaccount:team-a:helmcrew-release',
    },
    { name: 'defaults, named SA', spec: { serviceAccountName: 'mine' }, policy: safe, kind: 'named', want: 'system:serviceaccount:team-a:mine' },
    { name: 'cluster scope granted to its namespace: the controller itself', spec: {}, policy: platform, kind: 'controller', want: undefined },
    {
      name: 'cluster scope elsewhere only',
      spec: {},
      policy: { ...platform, clusterScopeNamespaces: ['platform'] },
      kind: 'managed',
      want: 'system:serviceaccount:team-a:helmcrew-release',
    },
    {
      name: 'cluster scope, but a named SA asks for less',
      spec: { serviceAccountName: 'mine' },
      policy: platform,
      kind: 'named',
      want: 'system:serviceaccount:team-a:mine',
    },
    { name: 'the old behaviour (*): the controller itself', spec: {}, policy: open, kind: 'controller', want: undefined },
    { name: 'operator default SA when none is named', spec: {}, policy: locked, kind: 'operator-default', want: 'system:serviceaccount:team-a:deployer' },
    {
      name: 'a named SA wins over the default',
      spec: { serviceAccountName: 'mine' },
      policy: locked,
      kind: 'named',
      want: 'system:serviceaccount:team-a:mine',
    },
  ])('$name → $want', ({ spec, policy, kind, want }) => {
    const target = releaseTarget(hr(spec), policy);
    expect(target.identity.kind).toBe(kind);
    expect(target.impersonate && serviceAccountUser(target.impersonate)).toBe(want);
  });

  it.each([
    { name: 'same namespace (implicit)', dependsOn: [{ name: 'db' }], policy: locked, want: true },
    { name: 'same namespace (explicit)', dependsOn: [{ name: 'db', namespace: 'team-a' }], policy: locked, want: true },
    { name: 'another namespace, safe default', dependsOn: [{ name: 'mesh', namespace: 'infra' }], policy: safe, want: false },
    { name: 'another namespace, allowed', dependsOn: [{ name: 'mesh', namespace: 'infra' }], policy: open, want: true },
  ])('dependsOn $name → allowed $want', ({ dependsOn, policy, want }) => {
    const release = hr({ dependsOn });
    const verdict = checkTenancy(release, releaseTarget(release, policy), policy);
    expect(verdict.allowed).toBe(want);
    if (!verdict.allowed)
      expect(verdict.message).toMatch(
        /dependsOn infra\/mesh is in another namespace than this HelmRelease's \(team-a\).*HELMCREW_ALLOW_CROSS_NAMESPACE_TARGETS=false/,
      );
  });

  it('a HelmRelease being deleted is not held by a dependsOn across namespaces (it is uninstalled)', () => {
    const release = hr({ dependsOn: [{ name: 'mesh', namespace: 'infra' }] });
    release.metadata.deletionTimestamp = '2026-11-26T00:00:00Z';
    expect(checkTenancy(release, releaseTarget(release, safe), safe).allowed).toBe(true);
  });

  it.each([
    { name: 'own namespace, locked', spec: {}, policy: locked, want: true },
    { name: 'own namespace named explicitly, locked', spec: { targetNamespace: 'team-a' }, policy: locked, want: true },
    { name: 'another namespace, locked', spec: { targetNamespace: 'team-b' }, policy: locked, want: false },
    { name: 'another namespace, allowed', spec: { targetNamespace: 'team-b' }, policy: open, want: true },
    { name: 'installed elsewhere before the lock-down (status remembers)', spec: {}, status: { releaseNamespace: 'team-b' }, policy: locked, want: false },
  ])('$name → allowed $want', ({ spec, status, policy, want }) => {
    const release = hr(spec, status);
    const verdict = checkTenancy(release, releaseTarget(release, policy), policy);
    expect(verdict.allowed).toBe(want);
    if (!verdict.allowed) expect(verdict.message).toMatch(/targetNamespace team-b is not this HelmRelease's namespace \(team-a\)/);
  });
});

describe('determineOwnership', () => {
  const ours = { releaseName: 'shop', releaseNamespace: 'team-a' };
  it.each([
    { name: 'nothing stored', records: [], status: undefined, want: 'free' },
    { name: 'only an uninstalled record', records: [record(ownedBy('team-b', 'x'), 'uninstalled')], status: undefined, want: 'free' },
    { name: 'labelled for this HelmRelease', records: [record(ownedBy('team-a', 'shop'))], status: undefined, want: 'ours' },
    { name: 'labelled for another name', records: [record(ownedBy('team-a', 'other'))], status: ours, want: 'other' },
    { name: 'labelled for the same name in another namespace', records: [record(ownedBy('team-b', 'shop'))], status: ours, want: 'other' },
    { name: 'unlabelled, installed by this HelmRelease before labels existed', records: [record({ owner: 'helm' })], status: ours, want: 'ours' },
    { name: 'unlabelled, never installed by this one (helm by hand)', records: [record({ owner: 'helm' })], status: undefined, want: 'unmanaged' },
    {
      name: 'unlabelled, this one installed another release name',
      records: [record()],
      status: { releaseName: 'shop2', releaseNamespace: 'team-a' },
      want: 'unmanaged',
    },
  ])('$name → $want', ({ records, status, want }) => {
    expect(determineOwnership(hr({}, status), summarizeHistory(records)).kind).toBe(want);
  });

  it('names the owner', () => {
    expect(determineOwnership(hr(), summarizeHistory([record(ownedBy('team-b', 'billing'))]))).toEqual({ kind: 'other', owner: 'HelmRelease team-b/billing' });
  });

  it('long HelmRelease names fit a label value and still identify their owner', () => {
    const long = 'a'.repeat(100);
    const labels = releaseLabels(hr({}, undefined, long), 30);
    expect(labels[OWNER_NAME_LABEL]!.length).toBeLessThanOrEqual(63);
    expect(labelValueFor(long)).not.toBe(labelValueFor(`${'a'.repeat(99)}b`));
    expect(determineOwnership(hr({}, undefined, long), summarizeHistory([record(labels)])).kind).toBe('ours');
    expect(labels[TIMEOUT_LABEL]).toBe('30');
  });

  it.each([
    [{ [TIMEOUT_LABEL]: '600' }, 600],
    [{ [TIMEOUT_LABEL]: '1s' }, undefined],
    [{ [TIMEOUT_LABEL]: '' }, undefined],
    [undefined, undefined],
  ])('recorded timeout of %j → %s', (labels, want) => {
    expect(recordedTimeoutSeconds(record(labels))).toBe(want);
  });
});

describe('impersonatingConfig', () => {
  const base = () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'local', server: 'https://127.0.0.1:6443', skipTLSVerify: false }],
      users: [
        { name: 'admin', token: 'controller-token' },
        { name: 'other', token: 'x' },
      ],
      contexts: [{ name: 'ctx', cluster: 'local', user: 'admin' }],
      currentContext: 'ctx',
    });
    return kc;
  };

  it("sends Impersonate-User as the ServiceAccount, with the controller's own credentials, and leaves the original alone", async () => {
    const original = base();
    const copy = impersonatingConfig(original, 'system:serviceaccount:team-a:deployer');
    const headersOf = async (kc: KubeConfig) => {
      const opts: { headers?: Record<string, string> } = {};
      await kc.applyToHTTPSOptions(opts);
      return opts.headers ?? {};
    };
    expect(await headersOf(copy)).toMatchObject({ 'Impersonate-User': 'system:serviceaccount:team-a:deployer', Authorization: 'Bearer controller-token' });
    const asController = { headers: await headersOf(original) };
    expect(asController.headers).not.toHaveProperty('Impersonate-User');
  });
});
