import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, testEnv } from '../support/fixtures.js';
import { untilAuthorized } from '../support/rbac.js';
import { runHelmcrewCli } from '../support/helmcrew-cli.js';

/**
 * Issue 7: `helmcrew release` acts as the kubeconfig user, so Kubernetes RBAC decides. A user
 * who may only read HelmReleases gets status, and is refused suspend by the API server with
 * nothing changed. No controller runs: only the API server's answer is tested.
 */
describe('helmcrew release under RBAC', () => {
  const { env, kubeConfig } = testEnv();
  const api = new HelmReleaseApi(makeKubeClients(kubeConfig));
  let namespace: string;
  let viewerKubeconfig: string;

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'cli-rbac');
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' } }));
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'viewer' } } });
    await rbac.createNamespacedRole({
      namespace,
      body: {
        metadata: { name: 'hr-viewer' },
        rules: [
          { apiGroups: ['helmcrew.dev'], resources: ['helmreleases'], verbs: ['get', 'list'] },
          { apiGroups: [''], resources: ['secrets'], verbs: ['list'] },
        ],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: 'viewer' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'hr-viewer' },
        subjects: [{ kind: 'ServiceAccount', name: 'viewer', namespace }],
      },
    });
    const viewer = `system:serviceaccount:${namespace}:viewer`;
    await untilAuthorized(kubeConfig, { user: viewer, namespace, group: 'helmcrew.dev', resource: 'helmreleases', verb: 'get' });
    const token = await core.createNamespacedServiceAccountToken({ namespace, name: 'viewer', body: { spec: { audiences: [], expirationSeconds: 3600 } } });
    const admin = parse(await readFile(env.kubeconfig, 'utf8')) as { users: Array<{ name: string; user: Record<string, unknown> }> };
    admin.users = admin.users.map((u) => ({ name: u.name, user: { token: token.status!.token } }));
    viewerKubeconfig = join(await mkdtemp(join(tmpdir(), 'helmcrew-cli-rbac-')), 'kubeconfig');
    await writeFile(viewerKubeconfig, stringify(admin), { mode: 0o600 });
  });
  afterAll(async () => {
    if (namespace) await deleteNamespace(kubeConfig, namespace);
  });

  const cli = (...args: string[]) => runHelmcrewCli(['release', ...args], { env: { KUBECONFIG: viewerKubeconfig, LOG_LEVEL: 'error' }, timeout: 60_000 });

  it('whoami names the user the API server authenticated, not the kubeconfig label', async () => {
    const who = await cli('whoami');
    expect(who.stdout).toMatch(new RegExp(`^kube:system:serviceaccount:${namespace}:viewer `));
  });

  it('a read-only user reads status', async () => {
    const status = await cli('status', `${namespace}/unicorn`);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/chart unicorn 1\.0\.0 declared/);
  });

  it('and is refused suspend by the API server; nothing changes', async () => {
    const before = (await api.get(namespace, 'unicorn'))!;
    const suspend = await cli('suspend', `${namespace}/unicorn`, '--yes');
    expect(suspend.exitCode).toBe(1);
    expect(suspend.stderr).toMatch(/the API server refused: .*forbidden/);
    const after = (await api.get(namespace, 'unicorn'))!;
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.spec.suspend).toBeFalsy();
  });
});
