import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config/env.js';
import { fromKubeconfig, fromKubeconfigFile, inCluster, KubeconfigError, loadConnectionConfig } from '../../src/core/kube/connection-config.js';
import { KubeConnection } from '../../src/core/kube/rest-client.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'ctx',
    contexts: [
      { name: 'other', context: { cluster: 'elsewhere', user: 'nobody' } },
      { name: 'ctx', context: { cluster: 'local', user: 'me' } },
    ],
    clusters: [
      { name: 'elsewhere', cluster: { server: 'https://elsewhere.test' } },
      { name: 'local', cluster: { server: 'https://127.0.0.1:6443/', ...cluster } },
    ],
    users: [
      { name: 'nobody', user: { token: 'wrong' } },
      { name: 'me', user },
    ],
  });
}

describe('kubeconfig for the slim client', () => {
  it('takes the current context: server, inline CA, client certificate and key, TLS server name', () => {
    const config = fromKubeconfig(
      kubeconfig(
        { 'certificate-authority-data': b64('CA'), 'tls-server-name': 'kubernetes' },
        { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY') },
      ),
    );
    expect(config).toMatchObject({ server: 'https://127.0.0.1:6443', insecureSkipTlsVerify: false, tlsServerName: 'kubernetes' });
    expect([config.ca?.toString(), config.cert?.toString(), config.key?.toString()]).toEqual(['CA', 'CERT', 'KEY']);
    expect(config.token).toBeUndefined();
  });

  it('reads files named relative to the kubeconfig, and tokenFile, insecure-skip-tls-verify and `as`', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'helmcrew-kc-'));
    await writeFile(join(dir, 'ca.crt'), 'CA FILE');
    await writeFile(join(dir, 'client.crt'), 'CERT FILE');
    await writeFile(join(dir, 'client.key'), 'KEY FILE');
    const path = join(dir, 'config');
    await writeFile(
      path,
      kubeconfig(
        { 'certificate-authority': 'ca.crt', 'insecure-skip-tls-verify': true },
        { 'client-certificate': 'client.crt', 'client-key': join(dir, 'client.key'), tokenFile: 'token', as: 'jane' },
      ),
    );
    const config = fromKubeconfigFile(path);
    expect([config.ca?.toString(), config.cert?.toString(), config.key?.toString()]).toEqual(['CA FILE', 'CERT FILE', 'KEY FILE']);
    expect(config).toMatchObject({ insecureSkipTlsVerify: true, tokenFile: join(dir, 'token'), impersonate: 'jane' });
    expect(loadConnectionConfig(path).tokenFile).toBe(join(dir, 'token'));
  });

  it.each([
    ['exec', { exec: { command: 'aws', apiVersion: 'client.authentication.k8s.io/v1' } }],
    ['auth-provider', { 'auth-provider': { name: 'oidc' } }],
    ['username', { username: 'admin', password: 'secret' }],
    ['as-groups', { as: 'x', 'as-groups': ['system:masters'] }],
  ])('refuses a user that uses %s, naming the field', (field, user) => {
    const attempt = () => fromKubeconfig(kubeconfig({}, user), '/home/me/.kube/config');
    expect(attempt).toThrow(KubeconfigError);
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(`/home/me/.kube/config: user "me" uses "${field}", which helmcrew does not support`);
    // The refusal never repeats a credential.
    try {
      attempt();
    } catch (error) {
      expect((error as Error).message).not.toContain('secret');
    }
  });

  it.each([
    ['no current-context', stringify({ contexts: [] }), /no current-context/],
    [
      'a missing cluster',
      stringify({ 'current-context': 'c', contexts: [{ name: 'c', context: { cluster: 'gone', user: 'u' } }], users: [{ name: 'u', user: {} }] }),
      /no cluster named "gone"/,
    ],
    ['a cluster without server', kubeconfig({ server: '' }, {}), /has no server/],
    ['a proxy-url', kubeconfig({ 'proxy-url': 'http://proxy:3128' }, {}), /uses "proxy-url"/],
  ])('says what is wrong with %s', (_case, text, message) => {
    expect(() => fromKubeconfig(text)).toThrow(message);
  });

  it('in a Pod: the service host and port, the mounted CA and token file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'helmcrew-sa-'));
    await writeFile(join(dir, 'token'), 'sa-token\n');
    await writeFile(join(dir, 'ca.crt'), 'SA CA');
    const config = inCluster({ KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' }, dir);
    expect(config).toMatchObject({ server: 'https://10.0.0.1:443', tokenFile: join(dir, 'token'), insecureSkipTlsVerify: false });
    expect(config.ca?.toString()).toBe('SA CA');
    expect(inCluster({ KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '6443' }, dir).server).toBe('https://[fd00::1]:6443');
    expect(() => inCluster({}, dir)).toThrow(/KUBERNETES_SERVICE_HOST/);
  });

  it('re-reads a token file once a minute (the kubelet rotates it), not on every request', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'helmcrew-tok-'));
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, 'first\n');
    let now = 0;
    const connection = new KubeConnection({ server: 'https://127.0.0.1:1', insecureSkipTlsVerify: false, tokenFile }, () => now);
    expect(connection.bearer()).toBe('first');
    await writeFile(tokenFile, 'second\n');
    now = 59_000;
    expect(connection.bearer()).toBe('first');
    now = 60_000;
    expect(connection.bearer()).toBe('second');
    await writeFile(tokenFile, 'third\n');
    expect(connection.bearer(true)).toBe('third'); // after a 401
  });
});

describe('helmcrew controller with a kubeconfig it cannot use', () => {
  it('stops at start-up with one line naming the field, exit code 2', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'helmcrew-kc-exec-'));
    const path = join(dir, 'config');
    await writeFile(path, kubeconfig({}, { exec: { command: 'gke-gcloud-auth-plugin', apiVersion: 'client.authentication.k8s.io/v1beta1' } }));
    const root = join(import.meta.dirname, '../..');
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(root, 'bin/helmcrew.js'), 'controller'],
        { cwd: root, env: { ...process.env, KUBECONFIG: path, REDIS_URL: 'redis://127.0.0.1:1', HELMCREW_WORK_DIR: join(dir, 'work') } },
        (error, _stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stderr }),
      );
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      `helmcrew: ${path}: user "me" uses "exec", which helmcrew does not support; use a client certificate, token or tokenFile`,
    );
  }, 30_000);
});
