import { createHash } from 'node:crypto';
import { relative, resolve, sep } from 'node:path';
import { parse } from 'yaml';
import type { ChartAccess } from '../../../core/release/desired-release.js';
import { credentialsFor } from '../chart-access.js';
import { GitSourceError } from './git-errors.js';

/**
 * Pure: what `helm dependency build` needs for a Git chart — the dependencies its Chart.yaml
 * declares, whether charts/ already holds them, the repositories.yaml and registry config that
 * carry the credentials of spec.chart.git.dependencies (files, never argv), and helm's failure
 * put in words that name the dependency.
 */

export interface ChartDependency {
  name: string;
  version: string;
  repository: string;
}

/** One entry of spec.chart.git.dependencies, its Secrets read (chart-access-reader.ts). */
export interface DependencyRepositoryAccess {
  repository: string;
  access: ChartAccess;
  /** `spec.chart.git.dependencies[i]`, for messages. */
  field: string;
}

/** Chart.yaml's `dependencies`, as helm reads them; bad entries are reported by name. */
export function declaredDependencies(chartYaml: string, where: string): ChartDependency[] {
  let doc: { dependencies?: unknown } | null;
  try {
    doc = parse(chartYaml, { maxAliasCount: 10 }) as typeof doc;
  } catch {
    throw new GitSourceError(`${where}: Chart.yaml is not valid YAML`);
  }
  const list = doc?.dependencies;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new GitSourceError(`${where}: Chart.yaml's dependencies is not a list`);
  return list.map((entry: unknown, i) => {
    const e = (entry ?? {}) as Record<string, unknown>;
    if (typeof e.name !== 'string' || !e.name) throw new GitSourceError(`${where}: Chart.yaml's dependencies[${i}] has no name`);
    return { name: e.name, version: typeof e.version === 'string' ? e.version : '', repository: typeof e.repository === 'string' ? e.repository : '' };
  });
}

/** True when charts/ holds every dependency already (vendored in the repository): nothing to build. */
export function allVendored(dependencies: ChartDependency[], chartsEntries: string[]): boolean {
  return dependencies.every((d) => chartsEntries.some((entry) => entry === d.name || (entry.startsWith(`${d.name}-`) && entry.endsWith('.tgz'))));
}

/**
 * Refuses what the controller cannot or must not fetch: a repository named by `helm repo add`
 * (`@stable`, `alias:stable`: the controller has no such list) and a file:// path that leads
 * outside the repository (it would read the controller's disk).
 */
export function checkDependencySources(dependencies: ChartDependency[], chartDir: string, checkoutDir: string, where: string): void {
  for (const d of dependencies) {
    const repo = d.repository;
    if (repo.startsWith('@') || repo.startsWith('alias:'))
      throw new GitSourceError(`${where}: dependency ${d.name} names the repository ${repo}; the controller has no helm repository list: write its URL in Chart.yaml`);
    if (repo.startsWith('file://')) {
      const target = resolve(chartDir, repo.slice('file://'.length));
      const inside = relative(checkoutDir, target);
      if (inside.startsWith('..') || inside.startsWith(sep) || resolve(checkoutDir, inside) !== target)
        throw new GitSourceError(`${where}: dependency ${d.name} (${repo}) leads outside the repository`);
    } else if (repo && !/^(https?|oci):\/\//.test(repo)) {
      throw new GitSourceError(`${where}: dependency ${d.name} has a repository helmcrew cannot fetch from: ${repo}`);
    }
  }
}

const sameRepository = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/** The spec entry for a dependency's repository, if the HelmRelease named one. */
export function accessFor(repository: string, entries: DependencyRepositoryAccess[]): DependencyRepositoryAccess | undefined {
  return entries.find((e) => sameRepository(e.repository, repository));
}

/** The http(s) and oci:// repositories the dependencies come from (each once). */
export function remoteRepositories(dependencies: ChartDependency[]): string[] {
  return [...new Set(dependencies.map((d) => d.repository).filter((r) => /^(https?|oci):\/\//.test(r)))];
}

/**
 * The private files helm reads: repositories.yaml (one entry per http(s) repository listed in the
 * spec, with its login and TLS files), registry.json (oci:// logins, `auths` only: no credential
 * helper program), and the TLS material. Paths are relative to the private folder: `at` makes them whole.
 */
export function dependencyFiles(entries: DependencyRepositoryAccess[], at: (name: string) => string): Record<string, string | Buffer> {
  const files: Record<string, string | Buffer> = {};
  const repositories: string[] = [];
  const auths: Record<string, { auth: string }> = {};
  entries.forEach((entry, i) => {
    const { access } = entry;
    if (entry.repository.startsWith('oci://')) {
      const host = new URL(entry.repository.replace(/^oci:/, 'http:')).host.toLowerCase();
      const login = credentialsFor(access, host);
      if (login) auths[host] = { auth: Buffer.from(`${login.username}:${login.password}`).toString('base64') };
      return;
    }
    const lines = [`- name: dependency-${i}`, `  url: ${JSON.stringify(entry.repository)}`];
    if (access.basic) lines.push(`  username: ${JSON.stringify(access.basic.username)}`, `  password: ${JSON.stringify(access.basic.password)}`);
    const tls = access.tls;
    if (tls?.ca) {
      files[`ca-${i}.crt`] = tls.ca;
      lines.push(`  caFile: ${JSON.stringify(at(`ca-${i}.crt`))}`);
    }
    if (tls?.cert && tls.key) {
      files[`tls-${i}.crt`] = tls.cert;
      files[`tls-${i}.key`] = tls.key;
      lines.push(`  certFile: ${JSON.stringify(at(`tls-${i}.crt`))}`, `  keyFile: ${JSON.stringify(at(`tls-${i}.key`))}`);
    }
    repositories.push(...lines);
  });
  files['repositories.yaml'] = ['apiVersion: ""', 'generated: "0001-01-01T00:00:00Z"', repositories.length ? 'repositories:' : 'repositories: []', ...repositories, ''].join('\n');
  files['registry.json'] = JSON.stringify({ auths });
  return files;
}

/** Spec entries helm cannot be given: a client certificate or CA for an oci:// dependency (helm takes those only for every repository at once). */
export function unsupportedEntry(entries: DependencyRepositoryAccess[]): string | undefined {
  const oci = entries.find((e) => e.repository.startsWith('oci://') && e.access.tls);
  return oci ? `${oci.field}.certSecretRef is for http(s) repositories; an oci:// dependency registry is trusted by the system's CAs` : undefined;
}

/** Names the build in the controller's work folder: one per checkout, chart folder and set of credentials (a tenant never gets what another's credentials fetched). */
export function buildKey(checkoutDir: string, chartPath: string, entries: DependencyRepositoryAccess[]): string {
  const hash = createHash('sha256').update(checkoutDir).update('\0').update(chartPath);
  for (const e of entries) hash.update('\0').update(e.repository).update('\0').update(e.access.cacheKey).update(e.access.insecure ? 'plain' : 'tls');
  return hash.digest('hex').slice(0, 24);
}

const shown = (d: ChartDependency) => `dependency ${d.name} ${d.version || '(any version)'}${d.repository ? ` from ${d.repository}` : ''}`;

/**
 * helm's failure, in words naming the dependency: a version the repository does not have, a
 * repository that refused (which Secret, or that none is named), else helm's own last error line
 * (redacted by the caller).
 */
export function dependencyBuildFailure(stderr: string, dependencies: ChartDependency[], entries: DependencyRepositoryAccess[], where: string): string {
  const notFound = /can't get a valid version for \d+ subchart\(s\): (.*)/.exec(stderr);
  if (notFound) {
    const named = [...notFound[1]!.matchAll(/"([^"]+)" \(repository "([^"]*)", version "([^"]*)"\)/g)].map((m) => `dependency ${m[1]} ${m[3]} from ${m[2]}`);
    if (named.length) return `${where}: ${named.join(', ')} not found (no such chart version in the repository)`;
  }
  // helm prints why an index could not be fetched (401, refused) on stdout, and fails with the
  // name it gave the repository: dependency-<i> (ours, from repositories.yaml), or
  // helm-manager-<sha256 of the URL> for one not listed.
  const uncached = /no cached repository for (\S+) found/.exec(stderr)?.[1];
  if (uncached) {
    const listed = /^dependency-(\d+)$/.exec(uncached);
    const entry = listed ? entries[Number(listed[1])] : undefined;
    const repository =
      entry?.repository ??
      remoteRepositories(dependencies).find((repo) => uncached === `helm-manager-${createHash('sha256').update(repo).digest('hex')}`);
    if (repository) {
      const deps = dependencies.filter((d) => sameRepository(d.repository, repository)).map(shown).join(', ');
      if (entry?.access.secret)
        return `${where}: ${deps}: could not read the repository's index with the credentials in Secret ${entry.access.secret} (${entry.field}.secretRef): refused, or unreachable`;
      return `${where}: ${deps}: could not read the repository's index: unreachable, or it asks for credentials (name a Secret for ${repository} in spec.chart.git.dependencies)`;
    }
  }
  const last = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('Error:'))
    .pop();
  return `${where}: helm dependency build failed for ${dependencies.map(shown).join(', ')}${last ? `: ${last.slice(0, 400)}` : ''}`;
}
