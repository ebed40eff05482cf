import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api } from '@kubernetes/client-node';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import type { RunningBot } from '../../src/bot/slack/app.js';
import { clusterKey } from '../../src/core/fleet/cluster-keys.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { ProposalStore } from '../../src/core/proposals/proposal-store.js';
import { connectRedis } from '../../src/core/redis.js';
import { ProposalAction } from '../../src/core/slack/action-ids.js';
import { buttonClick, postSigned, startFakeSlack, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { pollUntil } from '../../src/dev/harness/poll.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { startTestChartServer, type TestChartServer } from '../support/chart-servers.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { createTeam, deleteTeams } from '../support/notify-fixtures.js';
import { imageRegistryHost, pushImageTag } from '../support/oci.js';
import { startHttpBot } from '../support/slack-team-bot.js';

/**
 * Issue 35 on the real parts (local OCI registry, API server, Redis, helm, the controller, the bot
 * over signed button clicks; only Slack faked): a tag moved to a new digest becomes a proposal, and
 * spec.approval.teams decides whose Approve counts — a member of another Team granted `approve` is
 * told they cannot approve this one; two members of the listed Team apply it, and the live
 * Deployment runs `repo:tag@sha256:…` (the chart puts image.digest after the tag).
 */
describe('a moved tag proposed by digest, approved only by the listed Team', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const { namespace, ctl } = namespaceWithController('digest', { HELMCREW_PROPOSALS_TICK_MS: '300' });
  const host = imageRegistryHost(env);
  const repo = `${uniqueName('moved')}/web`;
  const token = 'xoxb-digest-teams-token';
  const secret = 'digest-teams-signing-secret';
  const redis = connectRedis(env.redisUrl);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  let store: ProposalStore;
  let slack: FakeSlack;
  let bot: RunningBot;
  let events: string;
  let charts: TestChartServer;
  let chartDir: string;

  beforeAll(async () => {
    store = new ProposalStore(redis, clusterKey(ctl.prefix, 'proposals'));
    chartDir = await mkdtemp(join(tmpdir(), 'helmcrew-stamp-'));
    charts = await startTestChartServer(await packageStampChart(env.helmBin, chartDir));
    slack = await startFakeSlack({
      tokens: [token],
      users: ['UANA', 'UBEN', 'UOPS'].map((id) => ({ id, name: id.slice(1).toLowerCase() })),
      channels: [{ id: 'CWEB', name: 'web-releases' }],
    });
    await createTeam(kube, ctl.prefix, `${ctl.prefix}-web`, {
      members: { slackUsers: ['UANA', 'UBEN'] },
      permissions: [{ namespaces: [namespace], verbs: ['approve'] }],
    });
    // ops may approve in this namespace too, but the release lists only web.
    await createTeam(kube, ctl.prefix, `${ctl.prefix}-ops`, {
      members: { slackUsers: ['UOPS'] },
      permissions: [{ namespaces: [namespace], verbs: ['approve'] }],
    });
    ({ bot, events } = await startHttpBot(slack, { token, secret, queuePrefix: ctl.prefix }));
  });
  afterAll(async () => {
    await bot?.stop();
    await slack?.stop();
    await charts?.stop();
    await deleteTeams(kube, ctl.prefix);
    await rm(chartDir, { recursive: true, force: true });
    redis.disconnect();
  });

  const press = async (value: string, user: string) => {
    const request = buttonClick(slack, ProposalAction.Approve, value, user, 'CWEB');
    expect((await postSigned(events, request.form, { secret })).status).toBe(200);
    return String(((await slack.replyOn(request.responseUrl, 30_000)) as { text: string }).text);
  };
  const liveImage = async () => (await apps.listNamespacedDeployment({ namespace })).items[0]?.spec?.template.spec?.containers[0]?.image;
  const waitForImage = (wanted: string) =>
    pollUntil(
      async () => ((await liveImage()) === wanted ? wanted : undefined),
      { timeoutMs: 90_000 },
      () => `${namespace}/web: the Deployment does not run ${wanted}`,
    );

  it('the new digest is proposed; ops is refused; two of web apply it; the Deployment runs repo:tag@sha256:…', async () => {
    await pushImageTag(host, repo, '1.0.0');
    const first = await manifestDigest(host, repo, '1.0.0');
    const spec: HelmReleaseSpec = {
      chart: { repository: charts.url, name: 'stamp', version: '1.0.0' },
      timeout: '90s',
      interval: '1s',
      values: { image: { repository: `${host}/${repo}`, tag: '1.0.0', digest: first } },
      imageUpdates: [
        { repository: `${host}/${repo}`, policy: { semver: '1.x' }, valuesPath: 'image.tag', digestPath: 'image.digest', interval: '1s', insecure: true },
      ],
      approval: { required: 2, teams: [`${ctl.prefix}-web`], expireAfter: '1h' },
    };
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'web', spec));
    await waitForImage(`${host}/${repo}:1.0.0@${first}`);

    // The same tag pushed again: new content, a new digest.
    await pushImageTag(host, repo, '1.0.0');
    const moved = await manifestDigest(host, repo, '1.0.0');
    expect(moved).not.toBe(first);
    const proposal = await pollUntil(
      async () => (await store.list()).find((p) => p.release.namespace === namespace && p.state.phase === 'open'),
      { timeoutMs: 30_000 },
      () => 'no open proposal for the moved tag',
    );
    expect(proposal.values).toEqual([{ valuesPath: 'image.digest', from: first, to: moved }]);
    expect(proposal.summary).toContain(`${repo}:1.0.0 moved to sha256:`);
    expect(proposal.facts.teams).toEqual([`${ctl.prefix}-web`]);
    const value = `${proposal.release.cluster}/${proposal.id}`;

    expect(await press(value, 'UOPS')).toBe(
      `Not counted: you cannot approve this one: it counts approvals only from members of the Team ${ctl.prefix}-web (you approve through ${ctl.prefix}-ops).`,
    );
    expect((await store.get(proposal.id))?.state).toEqual({ phase: 'open', approvers: [] });
    expect(await liveImage()).toBe(`${host}/${repo}:1.0.0@${first}`);

    expect(await press(value, 'UANA')).toMatch(/^Your approval is counted: .* It needs 1 more/);
    expect(await press(value, 'UBEN')).toMatch(/^Approved: /);
    await waitForImage(`${host}/${repo}:1.0.0@${moved}`);
    expect((await store.get(proposal.id))?.state).toEqual({ phase: 'applied', approvers: ['slack:UANA', 'slack:UBEN'] });
  });
});

/** The digest the registry answers for `repo:tag` (what a pull by tag resolves to). */
async function manifestDigest(host: string, repo: string, tag: string): Promise<string> {
  const res = await fetch(`http://${host}/v2/${repo}/manifests/${tag}`, {
    method: 'HEAD',
    headers: { accept: 'application/vnd.oci.image.manifest.v1+json' },
  });
  const digest = res.headers.get('docker-content-digest');
  if (!res.ok || !digest) throw new Error(`${host}/${repo}:${tag}: no digest (${res.status})`);
  return digest;
}

/** `stamp` 1.0.0: a Deployment (0 replicas) whose image is repository:tag, then @digest when image.digest is set; indexed in `dir`/repo. */
async function packageStampChart(helmBin: string, dir: string): Promise<string> {
  const chart = join(dir, 'src', 'stamp');
  const repoDir = join(dir, 'repo');
  await mkdir(join(chart, 'templates'), { recursive: true });
  await mkdir(repoDir, { recursive: true });
  await writeFile(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: stamp\nversion: 1.0.0\n');
  await writeFile(join(chart, 'values.yaml'), 'image: { repository: registry.local/stamp, tag: "1.0.0", digest: "" }\n');
  await writeFile(
    join(chart, 'templates', 'deployment.yaml'),
    `apiVersion: apps/v1
kind: Deployment
metadata: { name: {{ .Release.Name }} }
spec:
  replicas: 0
  selector: { matchLabels: { app: {{ .Release.Name }} } }
  template:
    metadata: { labels: { app: {{ .Release.Name }} } }
    spec:
      containers:
        - name: web
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}{{ with .Values.image.digest }}@{{ . }}{{ end }}"
`,
  );
  await execa(helmBin, ['package', chart, '--destination', repoDir]);
  await execa(helmBin, ['repo', 'index', repoDir]);
  return repoDir;
}
