import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { inspectKubeconfig, targetFor, type KubeconfigSecret } from '../../src/core/release/target-cluster.js';
import { parseExecCredential } from '../../src/controller/targets/exec-credential.js';
import { releasesUsingValuesSource } from '../../src/controller/watch/values-source-map.js';

/** Issue 32 (A): which cluster a HelmRelease acts on, from spec.kubeConfig and the Secret it names. */

const release = (kubeConfig?: HelmRelease['spec']['kubeConfig']): Pick<HelmRelease, 'spec' | 'metadata'> => ({
  metadata: { namespace: 'apps', name: 'web' },
  spec: { chart: { name: 'unicorn' }, ...(kubeConfig ? { kubeConfig } : {}) },
});

function kubeconfig(
  user: Record<string, unknown> = { token: 'secret-token' },
  cluster: Record<string, unknown> = { server: 'https://10.0.0.9:6443/' },
): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'edge', cluster }],
    users: [{ name: 'admin', user }],
    contexts: [{ name: 'edge', context: { cluster: 'edge', user: 'admin' } }],
    'current-context': 'edge',
  });
}

const secret = (data: Record<string, string>, resourceVersion = '42'): KubeconfigSecret => ({
  resourceVersion,
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});

const closed = { allowExec: false };
const open = { allowExec: true };

describe('targetFor', () => {
  it('no spec.kubeConfig: the controller’s own cluster, whatever Secret there is', () => {
    expect(targetFor(release(), undefined, closed)).toEqual({ kind: 'home' });
  });

  it.each<{ name: string; data: Record<string, string>; key: string | undefined; want: string }>([
    { name: 'key `value` (a Cluster API <cluster>-kubeconfig Secret as it is)', data: { value: kubeconfig() }, key: undefined, want: 'value' },
    { name: 'key `value.yaml` when there is no `value`', data: { 'value.yaml': kubeconfig() }, key: undefined, want: 'value.yaml' },
    { name: '`value` before `value.yaml`', data: { value: kubeconfig(), 'value.yaml': 'not: used' }, key: undefined, want: 'value' },
    { name: 'the key the spec names', data: { prod: kubeconfig(), value: 'not: used' }, key: 'prod', want: 'prod' },
  ])('remote: $name', ({ data, key, want }) => {
    const target = targetFor(release({ secretRef: { name: 'edge-kubeconfig', ...(key ? { key } : {}) } }), secret(data), closed);
    expect(target).toMatchObject({ kind: 'remote', secret: 'apps/edge-kubeconfig', key: want, version: '42', server: 'https://10.0.0.9:6443' });
  });

  it('a rotated Secret is another target version (clients are cached by it)', () => {
    const ref = release({ secretRef: { name: 'edge-kubeconfig' } });
    const before = targetFor(ref, secret({ value: kubeconfig() }, '1'), closed);
    const after = targetFor(ref, secret({ value: kubeconfig(undefined, { server: 'https://10.0.0.10:6443' }) }, '2'), closed);
    expect([before, after].map((t) => (t.kind === 'remote' ? [t.version, t.server] : t.kind))).toEqual([
      ['1', 'https://10.0.0.9:6443'],
      ['2', 'https://10.0.0.10:6443'],
    ]);
  });

  it.each([
    { name: 'the Secret is missing', given: undefined, key: undefined, want: 'spec.kubeConfig: Secret apps/edge-kubeconfig not found' },
    { name: 'no default key', given: secret({ other: kubeconfig() }), key: undefined, want: 'has no key "value" or "value.yaml"' },
    { name: 'the named key is missing', given: secret({ value: kubeconfig() }), key: 'prod', want: 'has no key "prod"' },
    { name: 'not YAML', given: secret({ value: 'a: [b' }), key: undefined, want: 'not a YAML kubeconfig' },
    { name: 'no current-context', given: secret({ value: 'apiVersion: v1\nkind: Config\n' }), key: undefined, want: 'no current-context' },
    {
      name: 'a server that is not http(s)',
      given: secret({ value: kubeconfig(undefined, { server: 'unix:///x' }) }),
      key: undefined,
      want: 'has no http(s) server',
    },
  ])('invalid: $name', ({ given, key, want }) => {
    const target = targetFor(release({ secretRef: { name: 'edge-kubeconfig', ...(key ? { key } : {}) } }), given, closed);
    expect(target).toMatchObject({ kind: 'refused', reason: 'KubeConfigInvalid' });
    expect(target.kind === 'refused' && target.message).toContain(want);
  });

  it('never quotes the kubeconfig (it holds credentials) in a message', () => {
    const target = targetFor(release({ secretRef: { name: 'k' } }), secret({ value: 'token: hunter2\n  - [' }), closed);
    expect(target.kind === 'refused' && target.message).not.toContain('hunter2');
  });
});

describe('inspectKubeconfig: what a kubeconfig would run or read on the controller', () => {
  const exec = {
    exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'aws', args: ['eks', 'get-token'], env: [{ name: 'AWS_PROFILE', value: 'prod' }] },
  };
  it.each([
    { name: 'an exec plugin', user: exec, cluster: undefined, want: 'runs an exec plugin, which would run a program in the controller' },
    {
      name: 'a client certificate file',
      user: { 'client-certificate': '/etc/cert.pem', 'client-key-data': 'eA==' },
      cluster: undefined,
      want: 'user "admin" client-certificate names a file',
    },
    { name: 'a token file', user: { tokenFile: '/var/run/token' }, cluster: undefined, want: 'user "admin" tokenFile names a file' },
    {
      name: 'a CA file',
      user: { token: 't' },
      cluster: { server: 'https://x', 'certificate-authority': '/ca.pem' },
      want: 'cluster "edge" certificate-authority names a file',
    },
  ])('refused unless the operator allows it: $name', ({ user, cluster, want }) => {
    const text = kubeconfig(user, cluster);
    const refused = inspectKubeconfig(text, closed);
    expect(refused).toHaveProperty('refused');
    expect((refused as { refused: string }).refused).toContain(want);
    expect((refused as { refused: string }).refused).toContain('HELMCREW_ALLOW_KUBECONFIG_EXEC=true');
    expect(inspectKubeconfig(text, open)).toHaveProperty('server');
  });

  it('an allowed exec plugin is carried, with its arguments and environment', () => {
    expect(inspectKubeconfig(kubeconfig(exec), open)).toEqual({
      server: 'https://10.0.0.9:6443',
      exec: { command: 'aws', args: ['eks', 'get-token'], env: { AWS_PROFILE: 'prod' }, apiVersion: 'client.authentication.k8s.io/v1' },
    });
  });

  it('an auth-provider is refused even when exec is allowed (helmcrew does not run them)', () => {
    expect(inspectKubeconfig(kubeconfig({ 'auth-provider': { name: 'gcp' } }), open)).toEqual({
      refused: 'user "admin" uses an auth-provider, which helmcrew does not run; use a token or a client certificate',
    });
  });

  it('embedded data and a token are fine', () => {
    expect(
      inspectKubeconfig(
        kubeconfig({ 'client-certificate-data': 'eA==', 'client-key-data': 'eA==' }, { server: 'https://x', 'certificate-authority-data': 'eA==' }),
        closed,
      ),
    ).toEqual({
      server: 'https://x',
    });
  });
});

describe('parseExecCredential', () => {
  it('reads a token and its expiry', () => {
    const out = JSON.stringify({ kind: 'ExecCredential', status: { token: 'tok', expirationTimestamp: '2030-01-01T00:00:00Z' } });
    expect(parseExecCredential(out, 'aws')).toEqual({ token: 'tok', expiresAt: Date.parse('2030-01-01T00:00:00Z') });
  });
  it('refuses output without a credential, never quoting it', () => {
    expect(() => parseExecCredential('password=hunter2', 'aws')).toThrow('exec plugin aws printed no ExecCredential status');
    expect(() => parseExecCredential(JSON.stringify({ status: {} }), 'aws')).toThrow('gave neither a token nor a client certificate and key');
  });
});

describe('the kubeconfig Secret is watched', () => {
  it('a change of the Secret reconciles the releases that name it', () => {
    const uses = { ...release({ secretRef: { name: 'edge-kubeconfig' } }), apiVersion: 'helmcrew.dev/v1alpha1', kind: 'HelmRelease' } as HelmRelease;
    expect(releasesUsingValuesSource('Secret', 'apps', 'edge-kubeconfig', [uses])).toEqual(['apps/web']);
    expect(releasesUsingValuesSource('ConfigMap', 'apps', 'edge-kubeconfig', [uses])).toEqual([]);
  });
});
