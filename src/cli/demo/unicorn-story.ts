import type { KubeConfig } from '@kubernetes/client-node';
import type { HelmRelease } from '../../api/helmrelease.js';
import { makeKubeClients } from '../../core/kube/client.js';
import { ReleaseStorage } from '../../core/helm-storage/release-storage.js';
import { applyHelmRelease, deploymentAvailable, ensureNamespace, helmReleaseObject, servedColor, waitForReconciled } from '../../dev/releases.js';
import { chartName, chartVersions } from '../../dev/unicorn-versions.js';

export interface StoryOptions {
  kubeConfig: KubeConfig;
  chartRepoUrl: string;
  namespace: string;
  say: (line: string) => void;
  /** Runs after each step is told (the demo shows the Slack messages the step produced). */
  afterStep?: (step: StoryStep, index: number) => Promise<void>;
}

export interface StoryStep {
  version: string;
  ready: string;
  reason: string;
  deployedRevision?: number;
  deployedVersion?: string;
  color?: string;
}

/**
 * The unicorn story: pink, blue, green, then the broken version, then back to green. Each step
 * changes the HelmRelease only and reports what the controller did, as a person would check it.
 */
export async function tellUnicornStory(opts: StoryOptions): Promise<StoryStep[]> {
  const { kubeConfig: kc, namespace, say } = opts;
  const storage = new ReleaseStorage(makeKubeClients(kc));
  await ensureNamespace(kc, namespace);
  const steps: StoryStep[] = [];
  const plan = [...chartVersions.map((v) => v.version), chartVersions.find((v) => v.color === 'green')!.version];

  for (const [index, version] of plan.entries()) {
    const meta = chartVersions.find((v) => v.version === version)!;
    const label = index === plan.length - 1 ? `back to ${version} (${meta.color})` : `${version} (${meta.broken ? 'the broken one' : meta.color})`;
    say(`\n▶ ${index + 1}. declare unicorn ${label}`);
    const release = helmReleaseObject(namespace, 'unicorn', {
      chart: { repository: opts.chartRepoUrl, name: chartName, version },
      interval: '1m',
      timeout: '2m',
      install: { createNamespace: true },
    });
    const generation = await applyHelmRelease(kc, release);
    const started = Date.now();
    const done = await waitForReconciled(kc, namespace, 'unicorn', generation, 180_000);
    const step = await describe(kc, storage, namespace, done, version);
    steps.push(step);
    say(`  controller: Ready=${step.ready} (${step.reason}) after ${((Date.now() - started) / 1000).toFixed(1)}s`);
    say(`  message:    ${readyMessage(done)}`);
    say(`  helm:       revision ${step.deployedRevision ?? '-'} deployed, chart ${step.deployedVersion ?? '-'}`);
    const available = await deploymentAvailable(kc, namespace, 'unicorn');
    say(`  page:       the unicorn is ${step.color ?? '(no page)'}; Deployment ${available ? 'available' : 'not available'}`);
    if (meta.broken && step.color !== chartVersions.find((v) => v.version === step.deployedVersion)?.color) {
      say(`  note:       helm still calls revision ${step.deployedRevision} deployed, but the failed upgrade half-applied:`);
      say(`              the page changed before the Deployment was refused. Declaring a good version again repairs it.`);
    }
    await opts.afterStep?.(step, index);
  }
  return steps;
}

async function describe(kc: KubeConfig, storage: ReleaseStorage, namespace: string, release: HelmRelease, version: string): Promise<StoryStep> {
  const ready = release.status?.conditions?.find((c) => c.type === 'Ready');
  const history = await storage.history(namespace, 'unicorn');
  return {
    version,
    ready: ready?.status ?? 'Unknown',
    reason: ready?.reason ?? '',
    deployedRevision: history.deployed?.revision,
    deployedVersion: history.deployed?.chartVersion,
    color: await servedColor(kc, namespace, 'unicorn'),
  };
}

function readyMessage(release: HelmRelease): string {
  const message = release.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? '';
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}
