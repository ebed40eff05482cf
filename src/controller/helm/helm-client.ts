import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HelmRunner, HelmRunOptions } from './helm-runner.js';
import { KILL_AFTER_MARGIN_SECONDS, killAfterMs } from './kill-after.js';
import { releaseWritten, type ReleaseWritten } from '../../core/helm-storage/release-written.js';
import type { ChartSource } from '../../core/release/desired-release.js';
import { withPrivateFiles } from './private-files.js';
import { withPostRenderer, type PostRenderHelm } from './post-renderer-plugin.js';
import type { PostRender } from '../../core/release/post-render.js';
import { registryFiles } from './registry-files.js';
import { helmValuesDocument } from './values-document.js';
import { valuesBaseFlag } from './helm-flags.js';

/** What an install or upgrade needs; decided by the reconciler, spelled as helm flags here. */
export interface ReleaseRequest {
  /** "namespace/name" of the HelmRelease, for logs. */
  key: string;
  releaseName: string;
  namespace: string;
  chartPath: string;
  values: Record<string, unknown>;
  timeoutSeconds: number;
  createNamespace: boolean;
  maxHistory: number;
  description: string;
  /** The action's own options as flags (helm-flags.ts: waiting, timeout, hooks, apply mode…). */
  actionFlags: string[];
  /** Stored on the release record Secret (owner, timeout): read back by ReleaseStorage. */
  labels: Record<string, string>;
  /** ServiceAccount to impersonate, "namespace:name". */
  impersonate?: { namespace: string; name: string };
  /** Removes Secret values from helm's error output (it can quote the offending value). */
  redact?: (text: string) => string;
  /** Stops helm when a newer generation of the HelmRelease arrives (running-operations.ts). */
  cancelSignal?: AbortSignal;
  /** spec.postRenderers and spec.commonMetadata, applied by kustomize as helm's post-renderer. */
  postRender?: PostRender;
  /** upgrade only: upgrade.preserveValues (helm-flags.ts valuesBaseFlag). */
  preserveValues?: boolean;
  /** install only: --skip-crds (install.crds: Skip). */
  skipCrds?: boolean;
}

export interface ChartRequest {
  key: string;
  repository: string;
  name: string;
  version: string;
  timeoutSeconds: number;
  /** oci:// only: pull this manifest digest (the archive is cached by it, so a moved tag is a new archive). */
  digest?: string;
  /** Where and how to get in (credentials, TLS, plain HTTP); absent for an anonymous repository. */
  source?: ChartSource;
  /** Fetches the archive without helm (an http(s) repository behind credentials or a private CA). */
  download?: () => Promise<Buffer>;
  /** Removes credentials from helm's output. */
  redact?: (text: string) => string;
}

/**
 * The helm CLI, one method per operation. Helm 4 flag spellings live here and nowhere else.
 * Values go to helm's stdin (`--values -`): never argv (visible to every process), never a file
 * (a killed controller would leave Secret values on disk).
 */
export class HelmClient {
  /** Pulls in progress, so concurrent workers needing the same chart share one helm pull. */
  private readonly pulling = new Map<string, Promise<string>>();

  constructor(
    private readonly runner: Pick<HelmRunner, 'run'>,
    private readonly workDir: string,
    /** The kustomize binary helm's post-renderer plugin runs. */
    private readonly kustomizeBin = 'kustomize',
    /** How long past its --timeout a helm process is left before it is killed (kill-after.ts). */
    private readonly killMarginSeconds = KILL_AFTER_MARGIN_SECONDS,
  ) {}

  /** Downloads a chart archive once per repository, name and exact version; returns its path. */
  async pullChart(chart: ChartRequest): Promise<string> {
    // A git chart is a folder of the controller's shared checkout already: nothing to pull.
    if (chart.source?.localChart) return chart.source.localChart;
    // A verified chart is installed from the very file whose signature was checked.
    if (chart.source?.verifiedArchive) return chart.source.verifiedArchive;
    const id = `${chart.repository}|${chart.name}|${chart.version}|${chart.digest ?? ''}`;
    const running = this.pulling.get(id);
    if (running) return running;
    const pull = this.pullOnce(chart).finally(() => this.pulling.delete(id));
    this.pulling.set(id, pull);
    return pull;
  }

  private async pullOnce(chart: ChartRequest): Promise<string> {
    const repoDir = join(this.workDir, 'charts', createHash('sha256').update(chart.repository).digest('hex').slice(0, 16));
    const byDigest = chart.digest ? `-${chart.digest.replace(/^[a-z0-9]+:/, '').slice(0, 32)}` : '';
    const archive = join(repoDir, `${chart.name}-${chart.version}${byDigest}.tgz`);
    if (existsSync(archive)) return archive;
    await mkdir(repoDir, { recursive: true });
    // Pull into a private folder first, so a half-written file never looks like a cached chart.
    const staging = await mkdtemp(join(repoDir, '.pull-'));
    try {
      if (chart.download) await writeFile(join(staging, 'chart.tgz'), await chart.download());
      else await this.helmPull(chart, staging);
      const [file] = (await readdir(staging)).filter((f) => f.endsWith('.tgz'));
      if (!file) throw new Error(`helm pull wrote no chart archive for ${chart.name} ${chart.version}`);
      await rename(join(staging, file), archive);
      return archive;
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  private async helmPull(chart: ChartRequest, destination: string): Promise<void> {
    // helm pull has no --timeout of its own: the kill is the timeout.
    const run = (args: string[]) => this.runner.run(args, { step: 'pull', release: chart.key, timeoutMs: chart.timeoutSeconds * 1000, redact: chart.redact });
    if (!chart.repository.startsWith('oci://')) {
      await run(['pull', chart.name, '--version', chart.version, '--destination', destination, '--repo', chart.repository]);
      return;
    }
    const ref = chart.source?.ociRef ?? `${chart.repository.replace(/\/+$/, '')}/${chart.name}`;
    const access = chart.source?.access;
    // Credentials and TLS material only as files of a private folder (registry-files.ts); always a
    // registry config of our own, so helm reads no one else's logins.
    await withPrivateFiles(this.workDir, registryFiles(ref, access), async (files) => {
      const args = ['pull', chart.digest ? `${ref}@${chart.digest}` : ref, '--destination', destination, '--registry-config', files['registry.json']!];
      if (!chart.digest) args.push('--version', chart.version);
      if (access?.insecure) args.push('--plain-http');
      if (files['ca.crt']) args.push('--ca-file', files['ca.crt']);
      if (files['tls.crt'] && files['tls.key']) args.push('--cert-file', files['tls.crt'], '--key-file', files['tls.key']);
      await run(args);
    });
  }

  async install(req: ReleaseRequest): Promise<ReleaseWritten> {
    return this.postRendering(req, async (post) => {
      const args = ['install', req.releaseName, req.chartPath, ...this.commonReleaseFlags(req), ...post.args];
      if (req.createNamespace) args.push('--create-namespace');
      if (req.skipCrds) args.push('--skip-crds');
      return releaseWritten(await this.runner.run(args, { ...this.releaseRunOptions('install', req), env: post.env }));
    });
  }

  async upgrade(req: ReleaseRequest): Promise<ReleaseWritten> {
    const args = ['upgrade', req.releaseName, req.chartPath, ...this.commonReleaseFlags(req), valuesBaseFlag(req.preserveValues === true)];
    // helm 4 spells it --history-max, and only upgrade prunes old revisions.
    args.push('--history-max', String(req.maxHistory));
    return this.postRendering(req, async (post) =>
      releaseWritten(await this.runner.run([...args, ...post.args], { ...this.releaseRunOptions('upgrade', req), env: post.env })),
    );
  }

  /** Back to an earlier revision; helm writes it as a new revision. */
  async rollback(req: {
    key: string;
    releaseName: string;
    namespace: string;
    revision: number;
    timeoutSeconds: number;
    /** rollbackFlags(): waiting, timeout, hooks, apply mode. */
    flags: string[];
    maxHistory: number;
    impersonate?: ReleaseRequest['impersonate'];
    redact?: ReleaseRequest['redact'];
  }): Promise<void> {
    const args = ['rollback', req.releaseName, String(req.revision), '--namespace', req.namespace, ...req.flags];
    args.push('--history-max', String(req.maxHistory), ...impersonationFlags(req.impersonate));
    await this.runner.run(args, { step: 'rollback', release: req.key, timeoutMs: killAfterMs(req.timeoutSeconds, this.killMarginSeconds), redact: req.redact });
  }

  /** `helm show crds`: the CRDs of the chart's crds/ folders (its subcharts' too), as YAML documents. */
  async showCrds(req: { key: string; chartPath: string }): Promise<string> {
    return this.runner.run(['show', 'crds', req.chartPath], { step: 'other', release: req.key, timeoutMs: 60_000 });
  }

  /** `helm test`: runs the chart's test hooks against the deployed revision; fails when one fails. */
  async test(req: { key: string; releaseName: string; namespace: string; timeoutSeconds: number; flags: string[]; impersonate?: ReleaseRequest['impersonate'] }): Promise<void> {
    const args = ['test', req.releaseName, '--namespace', req.namespace, ...req.flags, ...impersonationFlags(req.impersonate)];
    await this.runner.run(args, { step: 'test', release: req.key, timeoutMs: killAfterMs(req.timeoutSeconds, this.killMarginSeconds) });
  }

  async uninstall(req: { key: string; releaseName: string; namespace: string; timeoutSeconds: number; flags: string[]; impersonate?: ReleaseRequest['impersonate'] }): Promise<void> {
    const args = ['uninstall', req.releaseName, '--namespace', req.namespace, ...req.flags, ...impersonationFlags(req.impersonate)];
    await this.runner.run(args, { step: 'uninstall', release: req.key, timeoutMs: killAfterMs(req.timeoutSeconds, this.killMarginSeconds), helmTimeoutSeconds: req.timeoutSeconds });
  }

  /**
   * What an install or upgrade would apply, rendered and checked by the API server as the
   * release's identity (`--dry-run=server`: lookups see the cluster, nothing is written).
   */
  async renderDryRun(req: ReleaseRequest, mode: 'install' | 'upgrade'): Promise<string> {
    const args = [mode, req.releaseName, req.chartPath, '--namespace', req.namespace, '--values', '-', '--dry-run=server', '--output', 'json'];
    if (mode === 'upgrade') args.push(valuesBaseFlag(req.preserveValues === true));
    args.push(...impersonationFlags(req.impersonate));
    const stdout = await this.postRendering(req, (post) =>
      this.runner.run([...args, ...post.args], { step: 'dry-run', release: req.key, timeoutMs: 120_000, input: helmValuesDocument(req.values), redact: req.redact, env: post.env }),
    );
    const printed = JSON.parse(stdout) as { manifest?: unknown };
    return typeof printed.manifest === 'string' ? printed.manifest : '';
  }

  /** Post-renders through kustomize when the release asks for it (post-renderer-plugin.ts). */
  private postRendering<T>(req: ReleaseRequest, use: (post: PostRenderHelm) => Promise<T>): Promise<T> {
    return withPostRenderer({ workDir: this.workDir, kustomizeBin: this.kustomizeBin, postRender: req.postRender, redact: req.redact }, use);
  }

  private releaseRunOptions(step: 'install' | 'upgrade', req: ReleaseRequest): HelmRunOptions {
    return { step, release: req.key, timeoutMs: killAfterMs(req.timeoutSeconds, this.killMarginSeconds), helmTimeoutSeconds: req.timeoutSeconds, input: helmValuesDocument(req.values), redact: req.redact, cancelSignal: req.cancelSignal };
  }

  private commonReleaseFlags(req: ReleaseRequest): string[] {
    return [
      '--namespace', req.namespace,
      '--values', '-',
      ...req.actionFlags,
      // The API server validates what helm applies anyway (server-side apply refuses unknown
      // fields and wrong types; so does decoding on a client-side apply): helm's own check
      // against the OpenAPI schema changed no outcome and cost half of helm's CPU and ~12 MiB
      // (fetching and parsing /openapi/v3 in every process; bench/helm-env.ts, docs/field-notes.md).
      '--disable-openapi-validation',
      // The release as written, so its revision is known without listing the records again.
      '--output', 'json',
      '--description', req.description,
      // helm 4 writes these on the record Secret, pending records included; upgrade merges them over the old ones.
      '--labels', Object.entries(req.labels).map(([k, v]) => `${k}=${v}`).join(','),
      ...impersonationFlags(req.impersonate),
    ];
  }
}

/**
 * Values files written by helmcrew before values went to stdin (`values-*` folders in the work
 * directory): a controller killed mid-operation left them, Secret values included. Removed at
 * start so nothing outlives a restart.
 */
export async function removeLeftoverValuesFiles(workDir: string): Promise<string[]> {
  const entries = await readdir(workDir).catch(() => [] as string[]);
  const leftovers = entries.filter((name) => name.startsWith('values-'));
  await Promise.all(leftovers.map((name) => rm(join(workDir, name), { recursive: true, force: true })));
  return leftovers;
}

function impersonationFlags(sa: ReleaseRequest['impersonate']): string[] {
  return sa ? ['--kube-as-user', `system:serviceaccount:${sa.namespace}:${sa.name}`] : [];
}
