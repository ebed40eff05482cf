import { execa } from 'execa';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { DevEnvironment } from '../../src/dev/env-file.js';
import { REPO_ROOT } from '../../src/dev/paths.js';

export const CHART_DIR = join(REPO_ROOT, 'helm/helmcrew');

/** The web pages on, signing in with Slack (its client secret from a Secret). */
export const WEB_VALUES = ['web.enabled=true', 'web.url=https://helmcrew.example.org', 'web.slack.clientId=123.456', 'web.slack.existingSecret=slack-oidc'];

/**
 * The value sets the chart tests cover: the defaults (one `helmcrew run`, the in-chart Redis), split
 * parts with the web's own Deployment, an external Redis from a Secret, and `run` serving the web.
 */
export const VALUE_SETS: Record<string, string[]> = {
  default: [],
  split: ['redis.external.url=redis://redis:6379', 'parts.split=true', 'slack.existingSecret=slack', 'parts.controller.replicas=2', ...WEB_VALUES],
  'external-redis': ['redis.external.existingSecret=hc-redis', 'slack.existingSecret=slack', 'slack.bot.service.enabled=true'],
  'run-web': ['redis.external.url=redis://redis:6379', 'slack.existingSecret=slack', ...WEB_VALUES, 'web.ingress.enabled=true'],
};

export type EnvVar = { name: string; value?: string; valueFrom?: unknown };
export type KubeDoc = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: { template?: { spec: PodSpec } } & Record<string, unknown>;
} & Record<string, unknown>;
export type PodSpec = {
  serviceAccountName?: string;
  terminationGracePeriodSeconds?: number;
  securityContext?: Record<string, unknown>;
  containers: Array<{ name: string; args?: string[]; env: EnvVar[]; securityContext?: Record<string, unknown>; resources?: unknown; volumeMounts?: unknown[] }>;
  volumes?: unknown[];
};

/** `helm template` with the pinned helm: the YAML and its objects. */
export async function renderChart(env: DevEnvironment, sets: string[], opts: { release?: string; namespace?: string; extra?: string[] } = {}) {
  const args = ['template', opts.release ?? 'hc', CHART_DIR, ...(opts.namespace ? ['--namespace', opts.namespace] : []), ...(opts.extra ?? [])];
  const rendered = await execa(env.helmBin, [...args, ...sets.flatMap((s) => ['--set', s])]);
  const docs = parseAllDocuments(rendered.stdout)
    .map((d) => d.toJSON() as KubeDoc | null)
    .filter((d): d is KubeDoc => d !== null);
  return { yaml: rendered.stdout, docs };
}

/** helmcrew's own Deployments (not the in-chart Redis). */
export const deployments = (docs: KubeDoc[]) =>
  docs.filter(
    (d) => d.kind === 'Deployment' && ['run', 'controller', 'notify', 'bot', 'web'].includes(d.metadata.labels?.['app.kubernetes.io/component'] ?? ''),
  );

/** A container's literal variables (those from a Secret or the downward API left out). */
export const literalEnv = (vars: EnvVar[]) => Object.fromEntries(vars.filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]));
