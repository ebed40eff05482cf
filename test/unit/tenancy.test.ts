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
  it('default: no default ServiceAccount, cross-namespace targets allowed (as before)', () => {
    expect(readControllerConfig(base).tenancy).toEqual({ defaultServiceAccount: undefined, allowCrossNamespaceTargets: true });
  });
  it('lock-down', () => {
    const config = readControllerConfig({ ...base, HELMCREW_DEFAULT_SERVICE_ACCOUNT: 'helm-deployer', HELMCREW_ALLOW_CROSS_NAMESPACE_TARGETS: 'false' });
    expect(config.tenancy).toEqual({ defaultServiceAccount: 'helm-deployer', allowCrossNamespaceTargets: false });
  });
  it.each([
    [{ HELMCREW_DEFAULT_SERVICE_ACCOUNT: 'Helm Deployer' }, /HELMCREW_DEFAULT_SERVICE_ACCOUNT must be a ServiceAccount name .*got "Helm Deployer"/],
    [{ HELMCREW_DEFAULT_SERVICE_ACCOUNT: 'system:serviceaccount:a:b' }, /HELMCREW_DEFAULT_SERVICE_ACCOUNT must be a ServiceAccount name/],
    [{ HELMCREW_ALLOW_CROSS_NAMESPACE_TARGETS: 'no' }, /HELMCREW_ALLOW_CROSS_NAMESPACE_TARGETS must be "true" or "false", got "no"/],
  ])('%j → %s', (env, want) => {
    expect(() => readControllerConfig({ ...base, ...env })).toThrow(ConfigError);
    expect(() => readControllerConfig({ ...base, ...env })).toThrow(want);
  });
});

describe('who a HelmRelease acts as, and where it may install', () => {
  const locked = { defaultServiceAccount: 'deployer', allowCrossNamespaceTargets: false };
  const open = { allowCrossNamespaceTargets: true };
  it.each([
    { name: 'no lock-down, no SA: the controller itself', spec: {}, policy: open, want: undefined },
    { name: 'no lock-down, named SA', spec: { serviceAccountName: 'mine' }, policy: open, want: 'system:serviceaccount:team-a:mine' },
    { name: 'default SA when none is named', spec: {}, policy: locked, want: 'system:serviceaccount:team-a:deployer' },
    { name: 'a named SA wins over the default', spec: { serviceAccountName: 'mine' }, policy: locked, want: 'system:serviceaccount:team-a:mine' },
  ])('$name → $want', ({ spec, policy, want }) => {
    const sa = releaseTarget(hr(spec), policy).impersonate;
    expect(sa && serviceAccountUser(sa)).toBe(want);
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
