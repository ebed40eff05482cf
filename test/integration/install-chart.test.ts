import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { readBotConfig } from '../../src/bot/slack/config.js';
import { readControllerConfig } from '../../src/controller/config.js';
import { readNotifyConfig } from '../../src/notify/config.js';
import { readSessionConfig } from '../../src/session/flow/config.js';
import { readWebConfig } from '../../src/web/server/config.js';
import { CHART_DIR, deployments, literalEnv, renderChart, VALUE_SETS } from '../support/chart.js';
import { deleteNamespace, freshNamespace, testEnv } from '../support/fixtures.js';

/**
 * The Prometheus Operator's kinds, as the smallest CRDs that serve them: the local API server has
 * no Operator. With `x-kubernetes-preserve-unknown-fields` the dry run checks these two objects'
 * envelope (group, version, kind, metadata), not their spec; everything else gets its real schema.
 */
const MONITORING_CRDS = ['ServiceMonitor', 'PrometheusRule'].map((kind) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${kind.toLowerCase()}s.monitoring.coreos.com` },
  spec: {
    group: 'monitoring.coreos.com',
    scope: 'Namespaced',
    names: { kind, plural: `${kind.toLowerCase()}s`, singular: kind.toLowerCase(), listKind: `${kind}List` },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
}));
const OBSERVABILITY = ['metrics.serviceMonitor.enabled=true', 'metrics.prometheusRule.enabled=true', 'metrics.grafanaDashboard.enabled=true'];

/** The chart that installs helmcrew, checked with the pinned helm and the local API server. */
describe('helm/helmcrew', () => {
  const { env, kubeConfig } = testEnv();
  const kubectl = (args: string[], input?: string) => execa(env.kubectlBin, ['--kubeconfig', env.kubeconfig, ...args], { input, reject: false });
  let namespace: string;
  const crdsYaml = MONITORING_CRDS.map((crd) => stringify(crd)).join('---\n');

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'chart');
    const created = await kubectl(['apply', '-f', '-'], crdsYaml);
    expect(created.exitCode, created.stderr).toBe(0);
    const established = await kubectl(['wait', '--for=condition=Established', '--timeout=60s', ...MONITORING_CRDS.map((c) => `crd/${c.metadata.name}`)]);
    expect(established.exitCode, established.stderr).toBe(0);
  });
  afterAll(async () => {
    await kubectl(['delete', '--ignore-not-found', '-f', '-'], crdsYaml);
    if (namespace) await deleteNamespace(kubeConfig, namespace);
  });

  it.each(Object.entries(VALUE_SETS))('helm lint passes with the %s values', async (_name, sets) => {
    const lint = await execa(env.helmBin, ['lint', CHART_DIR, ...[...sets, ...OBSERVABILITY].flatMap((s) => ['--set', s])], { reject: false });
    expect(lint.exitCode, lint.stdout + lint.stderr).toBe(0);
  });

  it('refuses, naming the value, what cannot work: no Redis, a typo, two controllers without leader election', async () => {
    const refusal = async (sets: string[]) => {
      const result = await execa(env.helmBin, ['template', 'hc', CHART_DIR, ...sets.flatMap((s) => ['--set', s])], { reject: false });
      expect(result.exitCode).not.toBe(0);
      return result.stderr;
    };
    // Issue 33: the in-chart Redis is the default, and your Redis, once named, replaces it (chart-defaults.test.ts).
    expect(await refusal(['redis.inChart.enabled=false'])).toMatch(/set redis.external.url, redis.external.existingSecret or redis.inChart.enabled=true/);
    expect(await refusal(['redis.url=redis://r:6379'])).toMatch(/additional properties 'url' not allowed/);
    expect(await refusal(['parts.run.replicas=2', 'leaderElection.enabled=false'])).toMatch(/needs leaderElection.enabled=true/);
  });

  it.each(Object.entries(VALUE_SETS))('every object rendered with the %s values is accepted by the API server (server-side dry run)', async (_name, sets) => {
    const { yaml, docs } = await renderChart(env, [...sets, ...OBSERVABILITY], { namespace, extra: ['--include-crds'] });
    expect(docs.map((d) => d.kind)).toEqual(
      expect.arrayContaining([
        'CustomResourceDefinition',
        'ServiceAccount',
        'ClusterRole',
        'Deployment',
        'PodDisruptionBudget',
        'ServiceMonitor',
        'PrometheusRule',
        'ConfigMap',
      ]),
    );
    const applied = await kubectl(['apply', '-n', namespace, '--dry-run=server', '--server-side', '--force-conflicts', '-f', '-'], yaml);
    expect(applied.exitCode, applied.stderr).toBe(0);
    // One line per object, each "(server dry run)": nothing skipped.
    expect(
      applied.stdout
        .trim()
        .split('\n')
        .filter((line) => line.endsWith('(server dry run)')),
    ).toHaveLength(docs.length);
  });

  it('the split parts: four Deployments, each its own ServiceAccount, command and replicas, and a PodDisruptionBudget each; the web Service selects the web’s', async () => {
    const { docs } = await renderChart(env, VALUE_SETS.split!);
    const parts = deployments(docs).map((d) => ({
      name: d.metadata.name,
      replicas: d.spec!.replicas,
      account: d.spec!.template!.spec.serviceAccountName,
      args: d.spec!.template!.spec.containers[0]!.args,
    }));
    expect(parts).toEqual([
      { name: 'hc-controller', replicas: 2, account: 'hc-controller', args: ['controller'] },
      { name: 'hc-notify', replicas: 1, account: 'hc-notify', args: ['notify'] },
      { name: 'hc-bot', replicas: 1, account: 'hc-bot', args: ['bot'] },
      { name: 'hc-web', replicas: 1, account: 'hc-web', args: ['web'] },
    ]);
    expect(docs.filter((d) => d.kind === 'PodDisruptionBudget').map((d) => [d.metadata.name, d.spec!.maxUnavailable])).toEqual([
      ['hc-controller', 1],
      ['hc-notify', 1],
      ['hc-bot', 1],
      ['hc-web', 1],
    ]);
    const service = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'hc-web');
    expect(service?.spec?.selector).toMatchObject({ 'app.kubernetes.io/component': 'web' });
    // Two controller replicas: each is told its node, so two the scheduler puts on one node share its helm slots.
    const envOf = (name: string) => deployments(docs).find((d) => d.metadata.name === name)!.spec!.template!.spec.containers[0]!.env;
    expect(envOf('hc-controller').find((e) => e.name === 'HELMCREW_NODE_NAME')).toEqual({
      name: 'HELMCREW_NODE_NAME',
      valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } },
    });
    expect(envOf('hc-notify').map((e) => e.name)).not.toContain('HELMCREW_NODE_NAME');
    const web = deployments(docs).find((d) => d.metadata.name === 'hc-web')!.spec!.template!.spec.containers[0]!;
    expect(web.env.map((e) => e.name)).toEqual(expect.arrayContaining(['REDIS_URL', 'SLACK_BOT_TOKEN', 'HELMCREW_SLACK_OIDC_CLIENT_SECRET', 'HEALTH_PORT']));
  });

  it('every part gets settings its own configuration reader accepts (Secret references filled in as a pod would see them)', async () => {
    const secrets = {
      REDIS_URL: 'redis://redis:6379',
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_APP_TOKEN: 'xapp-1',
      HELMCREW_SLACK_OIDC_CLIENT_SECRET: 'client-secret',
      HELMCREW_NAMESPACE: namespace,
    };
    const webParts: string[] = [];
    for (const sets of Object.values(VALUE_SETS)) {
      for (const d of deployments((await renderChart(env, sets)).docs)) {
        const container = d.spec!.template!.spec.containers[0]!;
        const vars: Record<string, string> = { ...secrets, ...literalEnv(container.env) };
        const part = container.args![0];
        if (part === 'run' || part === 'controller') expect(readControllerConfig(vars).leaderElection).toBe(true);
        if (part === 'run' || part === 'notify') expect(readNotifyConfig(vars).healthPort).toBe(8081);
        if (part === 'bot') expect(readBotConfig(vars).healthPort).toBe(8081);
        if (vars.HELMCREW_WEB_LISTEN) {
          webParts.push(part!);
          expect(readWebConfig(vars)).toMatchObject({ listen: { port: 8080 }, publicUrl: 'https://helmcrew.example.org', trustProxy: true });
          expect(readSessionConfig(vars).timeZone).toBe('UTC');
        }
      }
    }
    expect(webParts).toEqual(['web', 'run']);
  });

  it('runs locked down: non-root, read-only root with writable /tmp and work dirs, no privilege escalation, seccomp, probes, and a grace above the shutdown grace', async () => {
    for (const sets of Object.values(VALUE_SETS)) {
      const { docs } = await renderChart(env, [...sets, 'controller.shutdownGraceSeconds=600']);
      for (const d of docs.filter((o) => o.kind === 'Deployment')) {
        const pod = d.spec!.template!.spec;
        expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
        for (const c of pod.containers) {
          expect(c.securityContext).toEqual({
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            privileged: false,
            capabilities: { drop: ['ALL'] },
          });
          expect(c.resources).toMatchObject({ requests: { cpu: expect.any(String), memory: expect.any(String) }, limits: { memory: expect.any(String) } });
        }
        if (d.metadata.labels?.['app.kubernetes.io/component'] === 'redis') continue;
        const c = pod.containers[0]!;
        expect(c).toMatchObject({
          readinessProbe: { httpGet: { path: '/readyz', port: 'health' } },
          livenessProbe: { httpGet: { path: '/healthz', port: 'health' } },
        });
        expect(c.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
        if (['run', 'controller'].includes(c.args![0]!)) {
          expect(c.volumeMounts).toContainEqual({ name: 'work', mountPath: '/work' });
          expect(literalEnv(c.env)).toMatchObject({ HELMCREW_WORK_DIR: '/work', HELMCREW_SHUTDOWN_GRACE_SECONDS: '600' });
          expect(pod.terminationGracePeriodSeconds).toBe(630);
        }
      }
    }
  });

  it('exposes the repository allow-list and the size limits, in a form the controller accepts', async () => {
    const { docs } = await renderChart(env, ['redis.external.url=redis://redis:6379', 'repositories.allowedHosts=charts.example.com\\,10.0.0.0/8']);
    const vars = literalEnv(deployments(docs)[0]!.spec!.template!.spec.containers[0]!.env);
    expect(vars).toMatchObject({
      HELMCREW_ALLOWED_REPOSITORY_HOSTS: 'charts.example.com,10.0.0.0/8',
      HELMCREW_MAX_INDEX_BYTES: String(20 * 1024 * 1024),
      HELMCREW_INDEX_CACHE_BYTES: String(64 * 1024 * 1024),
      HELMCREW_MAX_RELEASE_RECORD_BYTES: String(32 * 1024 * 1024),
    });
    const config = readControllerConfig(vars);
    expect(config).toMatchObject({ maxIndexBytes: 20 * 1024 * 1024, indexCacheBytes: 64 * 1024 * 1024, maxReleaseRecordBytes: 32 * 1024 * 1024 });
    expect(config.allowedRepositoryHosts.names.has('charts.example.com')).toBe(true);
  });
});
