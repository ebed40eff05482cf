import formbody from '@fastify/formbody';
import { CoreV1Api } from '@kubernetes/client-node';
import { execa } from 'execa';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { webSurface } from '../../src/cli/compose/web-surface.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { FreezeApi } from '../../src/core/kube/freeze-api.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { TeamApi } from '../../src/core/kube/team-api.js';
import { connectKube } from '../../src/core/kube/slim-clients.js';
import { createTeam, deleteTeam } from '../../src/dev/harness/index.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { teamPolicy } from '../../src/session/authz/policy-types.js';
import { freePorts } from '../../src/dev/free-port.js';
import { readSessionConfig } from '../../src/session/flow/config.js';
import type { WebPrincipal } from '../../src/web/contract.js';
import { renderChart } from '../support/chart.js';
import { runHelmcrewCli } from '../support/helmcrew-cli.js';
import { eventually } from '../support/eventually.js';
import { deleteNamespace, freshNamespace, startTestController, testEnv, uniqueName } from '../support/fixtures.js';
import { untilAuthorized } from '../support/rbac.js';

/**
 * The split `helmcrew web`'s rights (docs/security.md, the web rows) are enough for its work: the
 * web surface as `helmcrew web` builds it, authenticated with its ServiceAccount's own token, lists
 * and watches, renders the fleet and a release page, suspends a release and sets and lifts a Freeze
 * — no request forbidden. chart-rbac.test.ts holds the same rights to exactly the table.
 */
describe('the chart’s web ServiceAccount does the web’s work', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const release = uniqueName('hcw');
  const team = uniqueName('webrbac');
  const alice: WebPrincipal = { id: 'slack:UALICE', name: '@alice', via: 'slack', subject: { slackUser: 'UALICE', slackUserGroups: [] } };
  const logged: string[] = [];
  let namespace: string;
  let rbacYaml = '';
  let app: FastifyInstance;
  let redis: Redis;
  let surface: Awaited<ReturnType<typeof webSurface>>;
  let webKubeconfig: string;

  const kubectl = (args: string[], input?: string) => execa(env.kubectlBin, ['--kubeconfig', env.kubeconfig, ...args], { input, reject: false });

  /** A kubeconfig that authenticates as the ServiceAccount with a real token (TokenRequest). */
  const tokenKubeconfig = async (account: string): Promise<string> => {
    const token = await kubeConfig.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
      namespace,
      name: account,
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    const admin = parse(await readFile(env.kubeconfig, 'utf8')) as { users: Array<{ name: string; user: Record<string, unknown> }> };
    admin.users = admin.users.map((u) => ({ name: u.name, user: { token: token.status!.token } }));
    const path = join(await mkdtemp(join(tmpdir(), 'helmcrew-rbac-web-')), 'kubeconfig');
    await writeFile(path, stringify(admin), { mode: 0o600 });
    return path;
  };

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'rbacweb');
    const values = [
      'redis.external.url=redis://redis:6379',
      'rbac.clusterAdmin=false',
      'parts.split=true',
      'web.enabled=true',
      'web.url=https://helmcrew.example.org',
      'web.slack.clientId=123.456',
      'web.slack.existingSecret=slack-oidc',
      // Its own ClusterRole alone: `view` (web.objectHealth) would grant Events' list too.
      'web.objectHealth=false',
    ];
    const { docs } = await renderChart(env, values, { release, namespace });
    rbacYaml = docs
      .filter((d) => ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding'].includes(d.kind) && d.metadata.name.startsWith(`${release}-web`))
      .map((d) => stringify(d))
      .join('---\n');
    const applied = await kubectl(['apply', '-n', namespace, '-f', '-'], rbacYaml);
    expect(applied.exitCode, applied.stderr).toBe(0);
    const user = `system:serviceaccount:${namespace}:${release}-web`;
    await untilAuthorized(kubeConfig, { user, namespace, group: 'helmcrew.dev', resource: 'freezes', verb: 'delete' });

    await createTeam(kube, team, {
      members: { slackUsers: ['UALICE'] },
      permissions: [{ namespaces: [namespace], verbs: ['suspend', 'resume', 'status', 'freeze', 'unfreeze'] }],
    });
    // Installed by a controller with full rights: Helm's record is what the release page reads.
    const installer = await startTestController([namespace]);
    try {
      const chart = { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' };
      await waitForReconciled(kubeConfig, namespace, 'unicorn', await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'unicorn', { chart })));
    } finally {
      await installer.stop();
    }

    redis = new Redis(env.redisUrl, { maxRetriesPerRequest: null });
    const log = pino({ level: 'warn' }, { write: (line: string) => void logged.push(line) });
    const session = readSessionConfig({ REDIS_URL: env.redisUrl, HELMCREW_QUEUE_PREFIX: uniqueName('hc-rbac-web') });
    webKubeconfig = await tokenKubeconfig(`${release}-web`);
    const rest = connectKube(webKubeconfig);
    surface = await webSurface(rest, redis, env.redisUrl, session, log);
    // Who may: the Teams as the web's own identity lists them on every request.
    const teams = new TeamApi(makeKubeClients(kubeConfig));
    app = Fastify();
    await app.register(formbody);
    app.addHook('preHandler', async (request) => {
      if (request.headers['x-test-person'] === 'alice') request.web = { principal: alice, teams: (await teams.list()).items.map(teamPolicy), csrfToken: 'c' };
    });
    for (const routes of surface.pages) await routes(app);
  });
  afterAll(async () => {
    await app?.close();
    await surface?.stop();
    redis?.disconnect();
    await deleteTeam(kube, team).catch(() => undefined);
    if (rbacYaml) await kubectl(['delete', '-n', namespace, '--ignore-not-found', '-f', '-'], rbacYaml);
    if (namespace) await deleteNamespace(kubeConfig, namespace);
  });

  const get = (url: string) => app.inject({ method: 'GET', url, headers: { 'x-test-person': 'alice' } });
  const post = (url: string) =>
    app.inject({ method: 'POST', url, headers: { 'x-test-person': 'alice', 'content-type': 'application/x-www-form-urlencoded' }, payload: '_csrf=c' });
  const planId = (html: string) => /action="\/plans\/([A-Za-z0-9_-]+)\/confirm"/.exec(html)?.[1];
  const forbidden = () => logged.filter((line) => /forbidden|403/i.test(line));

  it('watches, renders the fleet, suspends a release (intent patched, audited as an Event), sets and lifts a Freeze', async () => {
    await eventually(() => expect(surface.ready()).toBe(true), { timeoutMs: 30_000 });
    const fleet = await get(`/?namespace=${namespace}`);
    expect(fleet.statusCode).toBe(200);
    expect(fleet.body).toContain('unicorn');
    const planned = await get(`/releases/-/${namespace}/unicorn/plan?verb=suspend&reason=rights`);
    expect(planned.statusCode, planned.body).toBe(200);
    const done = await post(`/plans/${planId(planned.body)}/confirm`);
    expect(done.statusCode, done.body).toBe(200);
    expect((await new HelmReleaseApi(kube).get(namespace, 'unicorn'))!.spec.suspend).toBe(true);
    const events = await kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=unicorn' });
    expect(events.items.map((e) => e.message)).toContainEqual(expect.stringMatching(/^slack:UALICE via web asked for the suspend of/));

    const freezes = new FreezeApi(kube);
    const freeze = await get(`/freezes/plan?scope=${namespace}&reason=rights&for=1h`);
    const frozen = await post(`/plans/${planId(freeze.body)}/confirm`);
    expect(frozen.statusCode, frozen.body).toBe(200);
    const written = (await freezes.list()).items.find((f) => f.spec.reason === 'rights' && f.spec.scope.namespaces?.includes(namespace));
    expect(written).toBeDefined();
    const lift = await get(`/freezes/plan?unfreeze=${written!.metadata.name}&reason=done`);
    const lifted = await post(`/plans/${planId(lift.body)}/confirm`);
    expect(lifted.statusCode, lifted.body).toBe(200);
    expect(await freezes.get(written!.metadata.name)).toBeUndefined();
    expect(forbidden()).toEqual([]);
  });

  it('a release page’s timeline holds Helm’s revision (records listed) and the suspend’s audit Event (Events listed)', async () => {
    // The page shows what it could read and leaves out the rest: a right missing would drop these lines.
    const page = await get(`/releases/-/${namespace}/unicorn`);
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('revision 1: unicorn 1.0.0');
    expect(page.body).toMatch(/asked for the suspend of/);
    expect(forbidden()).toEqual([]);
  });

  it('`helmcrew web` as the chart runs it: /healthz, /readyz (Redis, the watch listed) and /metrics on HEALTH_PORT; exits 0 on SIGTERM', async () => {
    const [health, web] = await freePorts(2);
    const child = runHelmcrewCli(['web'], {
      env: {
        KUBECONFIG: webKubeconfig,
        REDIS_URL: env.redisUrl,
        HELMCREW_QUEUE_PREFIX: uniqueName('hc-web-proc'),
        HEALTH_PORT: String(health),
        HELMCREW_WEB_LISTEN: `127.0.0.1:${web}`,
        HELMCREW_WEB_URL: `http://127.0.0.1:${web}`,
        HELMCREW_SLACK_OIDC_CLIENT_ID: '123.456',
        HELMCREW_SLACK_OIDC_CLIENT_SECRET: 'not-used-here',
        LOG_LEVEL: 'warn',
      },
      forceKillAfterDelay: false,
    });
    try {
      const answer = async (port: number, path: string) => {
        const response = await fetch(`http://127.0.0.1:${port}${path}`);
        return { status: response.status, text: await response.text() };
      };
      await eventually(async () => expect(await answer(health!, '/readyz')).toEqual({ status: 200, text: 'ok' }), { timeoutMs: 30_000, intervalMs: 200 });
      expect(await answer(health!, '/healthz')).toEqual({ status: 200, text: 'ok' });
      expect((await answer(health!, '/metrics')).text).toContain('process_resident_memory_bytes');
      expect((await answer(web!, '/healthz')).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    const exited = await child;
    expect(exited.exitCode, exited.stderr).toBe(0);
    expect(exited.stderr).not.toMatch(/forbidden|403/i);
  });
});
