import { execa } from 'execa';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { pino } from 'pino';
import { readControllerConfig } from '../../src/controller/config.js';
import { readNotifyConfig } from '../../src/notify/config.js';
import { startNotify } from '../../src/notify/notify.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, startTestController, testEnv, uniqueName } from '../support/fixtures.js';
import { leavePendingUpgrade } from '../support/pending-release.js';
import { deployments, literalEnv, renderChart, WEB_VALUES } from '../support/chart.js';
import { eventually } from '../support/eventually.js';

type Right = { part: string; resource: string; name: string; verbs: string[]; where: 'cluster' | 'own namespace' };

/** docs/security.md "Identities: rights per part": the table between the rights-table markers. */
async function readmeRights(): Promise<Right[]> {
  const readme = await readFile(join(REPO_ROOT, 'docs', 'security.md'), 'utf8');
  const table = readme.slice(readme.indexOf('<!-- rights-table -->'), readme.indexOf('<!-- /rights-table -->'));
  return table
    .split('\n')
    .filter((line) => /^\| (controller|notify|bot|web) /.test(line))
    .map((line) => {
      const [part, resource, name, verbs, where] = line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim().replace(/`/g, ''));
      return { part: part!, resource: resource!, name: name!, verbs: verbs!.split(/,\s*/), where: where as Right['where'] };
    });
}

/** `resource|name|verb` for every right a rule grants, as `kubectl auth can-i --list` prints rules. */
const triples = (rows: Array<{ resource: string; names: string[]; verbs: string[] }>) =>
  new Set(rows.flatMap((r) => (r.names.length ? r.names : ['']).flatMap((name) => r.verbs.map((verb) => `${r.resource}|${name}|${verb}`))));

/** The resource rules of `kubectl auth can-i --list` (a table: Resources, Non-Resource URLs, Resource Names, Verbs). */
function parseCanIList(stdout: string) {
  const list = (cell: string) => cell.split(' ').filter(Boolean);
  return stdout
    .split('\n')
    .slice(1)
    .map((line) => /^(\S+)\s+\[(.*?)\]\s+\[(.*?)\]\s+\[(.*?)\]\s*$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ resource: m[1]!, names: list(m[3]!), verbs: list(m[4]!) }));
}

/**
 * Issues 5 and 20: each part's least-privilege RBAC (rbac.clusterAdmin=false), applied to the test
 * cluster as rendered and asked with `kubectl auth can-i` as each ServiceAccount: the rights the
 * docs/security.md states, and no more.
 */
describe('helm/helmcrew RBAC with rbac.clusterAdmin=false', () => {
  const { env, kubeConfig } = testEnv();
  const releaseName = uniqueName('hc');
  let namespace: string;
  let rbacYaml = '';
  let controllerUser: string;
  let rights: Right[];

  const kubectl = (args: string[], input?: string) => execa(env.kubectlBin, ['--kubeconfig', env.kubeconfig, ...args], { input, reject: false });
  const RBAC_KINDS = ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'];
  /** The web part on (web.objectHealth off here: its `view` binding is asked apart, below). */
  const WEB = WEB_VALUES;
  const sets = (split: boolean) => [
    'redis.external.url=redis://redis:6379',
    'rbac.clusterAdmin=false',
    'slack.existingSecret=slack',
    `parts.split=${split}`,
    ...WEB,
    'web.objectHealth=false',
  ];

  /** Applies the ServiceAccounts and RBAC rendered with these values; returns the kinds applied. */
  const applyRbac = async (values: string[], release: string): Promise<string[]> => {
    const { docs } = await renderChart(env, values, { release, namespace });
    const rbacDocs = docs.filter((d) => RBAC_KINDS.includes(d.kind));
    const yaml = rbacDocs.map((d) => stringify(d)).join('---\n');
    rbacYaml += `---\n${yaml}`;
    const applied = await kubectl(['apply', '-n', namespace, '-f', '-'], yaml);
    expect(applied.exitCode, applied.stderr).toBe(0);
    return rbacDocs.map((d) => d.kind).sort();
  };

  /** What a ServiceAccount may do in a namespace beyond what every authenticated user may. */
  const granted = async (account: string, where: string) => {
    const ask = async (user: string) => parseCanIList((await kubectl(['auth', 'can-i', '--list', '-n', where, `--as=${user}`])).stdout);
    const baseline = triples(await ask(`system:serviceaccount:${namespace}:nobody-${releaseName}`));
    return [...triples(await ask(`system:serviceaccount:${namespace}:${account}`))].filter((t) => !baseline.has(t)).sort();
  };
  const stated = (parts: string[], where: 'cluster' | 'own namespace') =>
    [
      ...triples(
        rights
          .filter((r) => parts.includes(r.part) && (r.where === 'cluster' || where === 'own namespace'))
          .map((r) => ({ resource: r.resource, names: r.name ? [r.name] : [], verbs: r.verbs })),
      ),
    ].sort();

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'rbac');
    controllerUser = `system:serviceaccount:${namespace}:${releaseName}-controller`;
    rights = await readmeRights();
    expect(new Set(rights.map((r) => r.part))).toEqual(new Set(['controller', 'notify', 'bot', 'web']));
    const n = (kind: string, count: number) => Array<string>(count).fill(kind);
    // controller, notify, bot and web: a ClusterRole, its binding and a ServiceAccount each; the controller's Role.
    const split = await applyRbac(sets(true), releaseName);
    expect(split).toEqual([...n('ClusterRole', 4), ...n('ClusterRoleBinding', 4), 'Role', 'RoleBinding', ...n('ServiceAccount', 4)]);
    // `helmcrew run`: every part's ClusterRole bound to its one ServiceAccount.
    const combined = await applyRbac(sets(false), `${releaseName}-one`);
    expect(combined).toEqual([...n('ClusterRole', 4), ...n('ClusterRoleBinding', 4), 'Role', 'RoleBinding', 'ServiceAccount']);
  });
  afterAll(async () => {
    if (rbacYaml) await kubectl(['delete', '-n', namespace, '--ignore-not-found', '-f', '-'], rbacYaml);
    if (namespace) await deleteNamespace(kubeConfig, namespace);
  });

  it.each([
    { account: 'controller', parts: ['controller'] },
    { account: 'notify', parts: ['notify'] },
    { account: 'bot', parts: ['bot'] },
    { account: 'web', parts: ['web'] },
    { account: 'one', parts: ['controller', 'notify', 'bot', 'web'] },
  ])('the $account ServiceAccount has exactly the documented rights for $parts, in its namespace and elsewhere', async ({ account, parts }) => {
    expect(await granted(`${releaseName}-${account}`, namespace)).toEqual(stated(parts, 'own namespace'));
    expect(await granted(`${releaseName}-${account}`, 'default')).toEqual(stated(parts, 'cluster'));
  });

  it('with rbac.clusterAdmin=true (the default) only the controller is cluster-admin', async () => {
    await applyRbac(['redis.external.url=redis://redis:6379', 'parts.split=true', 'slack.existingSecret=slack', ...WEB], `${releaseName}-adm`);
    const can = async (account: string) =>
      (await kubectl(['auth', 'can-i', '*', '*', '-A', `--as=system:serviceaccount:${namespace}:${releaseName}-adm-${account}`])).stdout.trim();
    expect(await can('controller')).toBe('yes');
    expect(await can('notify')).toBe('no');
    expect(await can('bot')).toBe('no');
    expect(await can('web')).toBe('no');
  });

  it('web.objectHealth (the default) binds the web to `view`: it reads a release’s objects, changes none', async () => {
    const docs = await applyRbac(['redis.external.url=redis://redis:6379', 'rbac.clusterAdmin=false', 'parts.split=true', ...WEB], `${releaseName}-view`);
    expect(docs.filter((kind) => kind === 'ClusterRoleBinding')).toHaveLength(4); // controller, notify, web, web's view
    const can = async (...ask: string[]) =>
      (await kubectl(['auth', 'can-i', ...ask, '-n', 'default', `--as=system:serviceaccount:${namespace}:${releaseName}-view-web`])).stdout.trim();
    expect(await can('get', 'deployments.apps')).toBe('yes');
    expect(await can('get', 'services')).toBe('yes');
    // Secrets only through its own role (helm's records: listed, watched, two read by name for a rollback's plan); `view` adds none.
    expect(await can('get', 'secrets')).toBe('yes');
    expect(await can('update', 'deployments.apps')).toBe('no');
    expect(await can('delete', 'services')).toBe('no');
  });

  it('leader election: its own Lease in its namespace, no other', async () => {
    const can = async (...ask: string[]) => (await kubectl(['auth', 'can-i', ...ask, `--as=${controllerUser}`])).stdout.trim();
    expect(await can('create', 'leases.coordination.k8s.io', '-n', namespace)).toBe('yes');
    expect(await can('update', 'leases.coordination.k8s.io/helmcrew-controller-leader', '-n', namespace)).toBe('yes');
    expect(await can('update', 'leases.coordination.k8s.io/kube-scheduler', '-n', namespace)).toBe('no');
    expect(await can('delete', 'leases.coordination.k8s.io/helmcrew-controller-leader', '-n', namespace)).toBe('no');
    expect(await can('create', 'leases.coordination.k8s.io', '-n', 'kube-system')).toBe('no');
  });

  it('tenancy values reach the controller as the settings it parses', async () => {
    const { docs } = await renderChart(env, [
      'redis.external.url=redis://redis:6379',
      'tenancy.defaultServiceAccount=helm-deployer',
      'tenancy.allowCrossNamespaceTargets=false',
    ]);
    const vars = literalEnv(deployments(docs)[0]!.spec!.template!.spec.containers[0]!.env);
    expect(readControllerConfig(vars).tenancy).toEqual({
      defaultServiceAccount: 'helm-deployer',
      clusterScopeNamespaces: [],
      allowCrossNamespaceTargets: false,
    });
    const platform = await renderChart(env, ['redis.external.url=redis://redis:6379', 'tenancy.clusterScopeNamespaces={platform,cert-manager}']);
    const platformVars = literalEnv(deployments(platform.docs)[0]!.spec!.template!.spec.containers[0]!.env);
    expect(readControllerConfig(platformVars).tenancy.clusterScopeNamespaces).toEqual(['platform', 'cert-manager']);
  });

  it.each([
    { ask: ['impersonate', 'serviceaccounts'], want: 'yes' },
    { ask: ['impersonate', 'users'], want: 'no' },
    { ask: ['impersonate', 'groups'], want: 'no' },
    { ask: ['impersonate', 'groups/system:masters'], want: 'no' },
    { ask: ['impersonate', 'users/admin'], want: 'no' },
    { ask: ['update', 'secrets', '-n', 'kube-system'], want: 'yes' },
    { ask: ['delete', 'secrets', '-n', 'default'], want: 'no' },
    { ask: ['create', 'secrets', '-n', 'default'], want: 'no' },
    { ask: ['update', 'configmaps', '-n', 'default'], want: 'no' },
    { ask: ['create', 'helmreleases.helmcrew.dev', '-n', 'default'], want: 'no' },
    { ask: ['create', 'freezes.helmcrew.dev'], want: 'no' },
    { ask: ['create', 'deployments.apps', '-n', 'default'], want: 'no' },
    { ask: ['create', 'clusterrolebindings.rbac.authorization.k8s.io'], want: 'no' },
    { ask: ['escalate', 'clusterroles.rbac.authorization.k8s.io'], want: 'no' },
    // helmcrew-release: bound to admin in a namespace, never to a wider role.
    { ask: ['bind', 'clusterroles.rbac.authorization.k8s.io/admin'], want: 'yes' },
    { ask: ['bind', 'clusterroles.rbac.authorization.k8s.io/cluster-admin'], want: 'no' },
    { ask: ['create', 'rolebindings.rbac.authorization.k8s.io', '-n', 'default'], want: 'yes' },
    { ask: ['delete', 'rolebindings.rbac.authorization.k8s.io', '-n', 'default'], want: 'no' },
  ])('controller can-i $ask → $want', async ({ ask, want }) => {
    const answer = await kubectl(['auth', 'can-i', ...ask, `--as=${controllerUser}`]);
    expect(answer.stdout.trim()).toBe(want);
  });

  /** A kubeconfig that authenticates as the chart's ServiceAccount with a real token (TokenRequest). */
  const controllerKubeconfig = async (part = 'controller'): Promise<string> => {
    const token = await kubeConfig.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
      namespace,
      name: `${releaseName}-${part}`,
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    const admin = parse(await readFile(env.kubeconfig, 'utf8')) as { users: Array<{ name: string; user: Record<string, unknown> }> };
    for (const u of admin.users) admin.users.splice(admin.users.indexOf(u), 1, { name: u.name, user: { token: token.status!.token } });
    const path = join(await mkdtemp(join(tmpdir(), 'helmcrew-rbac-')), 'kubeconfig');
    await writeFile(path, stringify(admin), { mode: 0o600 });
    return path;
  };

  it('the controller’s token impersonates a tenant ServiceAccount, but no user or group', async () => {
    const kc = await controllerKubeconfig();
    const asTenant = await execa(
      env.kubectlBin,
      ['--kubeconfig', kc, 'auth', 'can-i', 'create', 'deployments.apps', '-n', namespace, `--as=system:serviceaccount:${namespace}:tenant`],
      { reject: false },
    );
    expect(asTenant.stdout.trim()).toBe('no'); // allowed to ask as the tenant; the tenant has no rights yet
    const asAdmin = await execa(env.kubectlBin, ['--kubeconfig', kc, 'get', 'secrets', '-n', namespace, '--as=admin', '--as-group=system:masters'], {
      reject: false,
    });
    expect(asAdmin.exitCode).not.toBe(0);
    expect(asAdmin.stderr).toMatch(/cannot impersonate/);
  });

  it('with exactly these rights the controller unlocks a release left pending, and installs for a tenant as its ServiceAccount', async () => {
    const chart = { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' };
    // Installed by a controller with full rights...
    const installer = await startTestController([namespace]);
    try {
      await waitForReconciled(
        kubeConfig,
        namespace,
        'stuck',
        await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'stuck', { chart, timeout: '3s' })),
      );
    } finally {
      await installer.stop();
    }
    const pending = await leavePendingUpgrade(kubeConfig, namespace, 'stuck', 1, new Date(Date.now() - 60 * 60_000));
    await kubeConfig.makeApiClient(CoreV1Api).createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'tenant' } } });
    await kubeConfig.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: 'tenant-admin' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
        subjects: [{ kind: 'ServiceAccount', name: 'tenant', namespace }],
      },
    });

    // ...then a controller that authenticates as the chart's ServiceAccount, nothing more.
    // HELMCREW_NAMESPACE: the chart's Role lets it create its values digest key only in its own namespace.
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
    const controller = await startTestController([namespace], { KUBECONFIG: await controllerKubeconfig(), HELMCREW_NAMESPACE: namespace }, log);
    try {
      const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
      await eventually(async () => expect((await storage.history(namespace, 'stuck')).releases.find((r) => r.revision === pending)?.status).toBe('failed'));
      const events = await kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=stuck' });
      expect(events.items.map((e) => e.reason)).toContain('ReleaseUnlocked');

      const generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'tenant-app', { chart, serviceAccountName: 'tenant' }));
      const release = await waitForReconciled(kubeConfig, namespace, 'tenant-app', generation);
      expect(release.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
      // Every watch it keeps (HelmReleases, Teams, valuesFrom ConfigMaps and Secrets) is allowed
      // (the upgrade of "stuck", which names no ServiceAccount, is forbidden to helm: expected).
      expect(warnings.filter((line) => /watch failed|informer failed/i.test(line))).toEqual([]);
    } finally {
      await controller.stop();
    }
  });

  it('with exactly these rights and no tenancy settings, the controller sets up helmcrew-release and installs as it', async () => {
    const other = await freshNamespace(kubeConfig, 'rbac-managed');
    const controller = await startTestController(
      [other],
      { KUBECONFIG: await controllerKubeconfig(), HELMCREW_NAMESPACE: namespace, HELMCREW_ALLOWED_REPOSITORY_HOSTS: '127.0.0.1' },
      undefined,
      { safeDefaults: true },
    );
    try {
      const chart = { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' };
      const release = await waitForReconciled(kubeConfig, other, 'managed', await applyHelmRelease(kubeConfig, helmReleaseObject(other, 'managed', { chart })));
      expect(release.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
      const binding = await kubeConfig.makeApiClient(RbacAuthorizationV1Api).readNamespacedRoleBinding({ namespace: other, name: 'helmcrew-release' });
      expect(binding.roleRef.name).toBe('admin');
    } finally {
      await controller.stop();
      await deleteNamespace(kubeConfig, other);
    }
  });

  it('notify, with only its own rights, lists Teams and becomes ready', async () => {
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
    const config = readNotifyConfig({
      KUBECONFIG: await controllerKubeconfig('notify'),
      REDIS_URL: env.redisUrl,
      HELMCREW_QUEUE_PREFIX: uniqueName('hc-rbac'),
    });
    const notify = await startNotify(config, log);
    try {
      await eventually(() => expect(notify.ready()).toBe(true), { timeoutMs: 30_000 });
      expect(warnings.filter((line) => /forbidden|403/i.test(line))).toEqual([]);
    } finally {
      await notify.stop();
    }
  });
});
