import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHART_DIR, deployments, literalEnv, renderChart, type KubeDoc } from '../support/chart.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';

type Labels = Record<string, string>;
type Service = KubeDoc & { spec: { selector: Labels; ports: Array<{ port: number; targetPort: string }> } };
type Deployment = KubeDoc & {
  spec: { template: { metadata: { labels: Labels }; spec: { containers: Array<{ image: string; ports?: Array<{ name: string }> }> } } };
};

/** Whether every label of the selector is on the pod. */
const selects = (selector: Labels, pod: Labels) => Object.entries(selector).every(([k, v]) => pod[k] === v);

/**
 * Issue 33: the chart installs with its defaults (`helm install helmcrew ./helm/helmcrew -n helmcrew`,
 * no --set), running the in-chart Redis, and its NOTES say what production must change. Pods do not
 * run on the local API server (no kubelet): the tests check the objects.
 */
describe('helm/helmcrew with its defaults', () => {
  const { env, kubeConfig } = testEnv();
  const helm = (args: string[]) => execa(env.helmBin, args, { reject: false });
  const kubectl = (args: string[]) => execa(env.kubectlBin, ['--kubeconfig', env.kubeconfig, ...args], { reject: false });

  it('helm lint and helm template pass with no --set; helmcrew uses the in-chart Redis its Service reaches', async () => {
    const lint = await helm(['lint', CHART_DIR]);
    expect(lint.exitCode, lint.stdout + lint.stderr).toBe(0);

    const { docs } = await renderChart(env, [], { release: 'helmcrew', namespace: 'helmcrew' });
    const [run, ...others] = deployments(docs);
    expect(others).toEqual([]);
    expect(literalEnv(run!.spec!.template!.spec.containers[0]!.env).REDIS_URL).toBe('redis://helmcrew-redis:6379');
    const redis = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'helmcrew-redis') as Deployment | undefined;
    const service = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'helmcrew-redis') as Service | undefined;
    expect(redis?.spec.template.spec.containers[0]!.image).toMatch(/^redis:/);
    expect(service?.spec.ports).toEqual([{ name: 'redis', port: 6379, targetPort: 'redis' }]);
    expect(selects(service!.spec.selector, redis!.spec.template.metadata.labels)).toBe(true);
    // The Redis Service must not pick helmcrew's own pods, nor the metrics Service Redis.
    expect(selects(service!.spec.selector, (run as unknown as Deployment).spec.template.metadata.labels)).toBe(false);
  });

  it.each([
    ['a URL', ['redis.external.url=redis+sentinel://s-0:26379\\,s-1:26379/mymaster'], { value: 'redis+sentinel://s-0:26379,s-1:26379/mymaster' }],
    ['a Secret', ['redis.external.existingSecret=my-redis'], { valueFrom: { secretKeyRef: { name: 'my-redis', key: 'redis-url' } } }],
    ['a URL, inChart.enabled=true also set', ['redis.inChart.enabled=true', 'redis.external.url=redis://r:6379'], { value: 'redis://r:6379' }],
  ])('your Redis, once named (%s), is used and the in-chart one is not rendered', async (_what, sets, expected) => {
    const { docs } = await renderChart(env, sets);
    expect(docs.filter((d) => d.metadata.name.endsWith('-redis')).map((d) => d.kind)).toEqual([]);
    expect(deployments(docs)[0]!.spec!.template!.spec.containers[0]!.env.find((e) => e.name === 'REDIS_URL')).toEqual({ name: 'REDIS_URL', ...expected });
  });

  describe('helm install with no --set, on the API server', () => {
    const release = uniqueName('hc');
    let namespace: string;
    let installed: Awaited<ReturnType<typeof helm>>;
    const kube = ['--kubeconfig', env.kubeconfig];

    beforeAll(async () => {
      namespace = await freshNamespace(kubeConfig, 'chartdef');
      // No --set. --skip-crds: the environment serves the CRDs already, applied server-side by
      // `helmcrew crds apply`'s field manager, and helm 4 applies crds/ server-side without force,
      // so it refuses a CRD another manager owns (docs/chart.md). The CRDs themselves are checked by
      // install-chart.test.ts (--include-crds, server-side dry run).
      installed = await helm(['install', release, CHART_DIR, '-n', namespace, '--skip-crds', ...kube]);
    });
    afterAll(async () => {
      // The cluster-scoped RBAC goes with the release.
      await helm(['uninstall', release, '-n', namespace, ...kube]);
      if (namespace) await deleteNamespace(kubeConfig, namespace);
    });

    it('creates helmcrew and its Redis, and the release is deployed', async () => {
      expect(installed.exitCode, installed.stderr).toBe(0);
      const status = await helm(['status', release, '-n', namespace, '-o', 'json', ...kube]);
      expect((JSON.parse(status.stdout) as { info: { status: string } }).info.status).toBe('deployed');

      const listed = await kubectl(['get', 'deployments,services,serviceaccounts,poddisruptionbudgets,roles,rolebindings', '-n', namespace, '-o', 'json']);
      expect(listed.exitCode, listed.stderr).toBe(0);
      const items = (JSON.parse(listed.stdout) as { items: KubeDoc[] }).items.map((o) => `${o.kind}/${o.metadata.name}`);
      expect(items).toEqual(
        expect.arrayContaining([
          `Deployment/${release}`,
          `Deployment/${release}-redis`,
          `Service/${release}-redis`,
          `Service/${release}-metrics`,
          `ServiceAccount/${release}`,
          `PodDisruptionBudget/${release}`,
          `Role/${release}-controller`,
          `RoleBinding/${release}-controller`,
        ]),
      );
      const clusterRole = await kubectl(['get', 'clusterrole', `${release}-controller`, '-o', 'name']);
      expect(clusterRole.exitCode, clusterRole.stderr).toBe(0);

      // The Deployment on the server points at the Service on the server, which selects the Redis pods.
      const get = async <T>(what: string) => JSON.parse((await kubectl(['get', what, '-n', namespace, '-o', 'json'])).stdout) as T;
      const run = await get<KubeDoc>(`deployment/${release}`);
      expect(literalEnv(run.spec!.template!.spec.containers[0]!.env).REDIS_URL).toBe(`redis://${release}-redis:6379`);
      const service = await get<Service>(`service/${release}-redis`);
      const redis = await get<Deployment>(`deployment/${release}-redis`);
      expect(selects(service.spec.selector, redis.spec.template.metadata.labels)).toBe(true);
    });

    it('prints NOTES that say, loudly, what production must change: its own Redis or Sentinel first', async () => {
      expect(installed.stdout).toMatch(/NOT FOR PRODUCTION: this install runs the in-chart Redis/);
      expect(installed.stdout).toMatch(/Production must point at its own Redis or Sentinel set/);
      expect(installed.stdout).toContain('--set redis.external.existingSecret=');
      expect(installed.stdout).toMatch(/What else to change for production/);
      expect(installed.stdout).toMatch(/image\.repository/);
      expect(installed.stdout).toMatch(/docs\/security\.md/);
    });
  });

  it('NOTES with your own Redis, image and Slack: no in-chart Redis warning, nothing said about what is set', async () => {
    // helm template does not print NOTES; a client-side dry run of install does, without a cluster.
    const dryRun = await helm([
      'install',
      'hc',
      CHART_DIR,
      '--dry-run=client',
      '--set',
      'redis.external.url=redis://r:6379',
      '--set',
      'image.repository=registry.example/helmcrew',
      '--set',
      'slack.existingSecret=slack',
    ]);
    expect(dryRun.exitCode, dryRun.stderr).toBe(0);
    const printed = dryRun.stdout.slice(dryRun.stdout.indexOf('NOTES:'));
    expect(printed).toMatch(/What else to change for production/);
    expect(printed).not.toMatch(/in-chart Redis|image\.repository|slack\.existingSecret/);
  });
});
