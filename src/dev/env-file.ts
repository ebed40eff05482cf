// <state>/env.json: what `dev up` started, recorded so a later command finds it, re-uses it, or
// stops exactly the processes it started; and the environment as the rest of the code sees it.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { HOME_CLUSTER } from './dev-clusters.js';
import type { OciRegistries } from './oci-registry.js';
import { statePaths, toolchainPaths } from './paths.js';
import type { ProcessRecord } from './processes.js';

/** One control plane of a local fleet (`dev up --clusters`). */
export interface DevCluster {
  name: string;
  kubeconfig: string;
  apiserverUrl: string;
}

export interface DevEnvironment {
  stateDir: string;
  kubeconfig: string;
  /**
   * Every control plane, the environment's own first (its kubeconfig is `kubeconfig`); one Redis for
   * all. Absent for a one-cluster environment.
   */
  clusters?: DevCluster[];
  redisUrl: string;
  chartRepoUrl: string;
  /** The local OCI registries (oci-registry.ts): anonymous, and behind basic auth. */
  ociRegistry: OciRegistries;
  helmBin: string;
  kubectlBin: string;
  /** From the toolchain cache (not env.json, so an environment started before kustomize was added has it too). */
  kustomizeBin: string;
  /** sops, from the toolchain cache like kustomize (SOPS-encrypted valuesFrom documents). */
  sopsBin: string;
  /** cosign, from the toolchain cache (signed OCI charts and images). */
  cosignBin: string;
  /** tools/notation-verify, from the toolchain cache (notation-signed OCI charts and images). */
  notationVerifyBin: string;
  processes: ProcessRecord[];
}

/** What env.json holds: written while starting too, so an interrupted `up` can be taken down. */
export interface EnvFile extends Partial<DevEnvironment> {
  status: 'starting' | 'up';
  processes: ProcessRecord[];
  apiserverUrl?: string;
}

export async function readEnvFile(stateDir: string): Promise<EnvFile | undefined> {
  try {
    return JSON.parse(await readFile(statePaths(stateDir).envFile, 'utf8')) as EnvFile;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export async function writeEnvFile(stateDir: string, file: EnvFile): Promise<void> {
  const path = statePaths(stateDir).envFile;
  await writeFile(`${path}.tmp`, `${JSON.stringify(file, null, 2)}\n`);
  await rename(`${path}.tmp`, path); // never a half-written file for a concurrent reader
}

export function toEnvironment(file: EnvFile): DevEnvironment {
  const { stateDir, kubeconfig, redisUrl, chartRepoUrl, ociRegistry, helmBin, kubectlBin, processes, clusters } = file;
  return {
    stateDir: stateDir!,
    kubeconfig: kubeconfig!,
    ...(clusters && runsAFleet(clusters.map((c) => c.name)) ? { clusters } : {}),
    redisUrl: redisUrl!,
    chartRepoUrl: chartRepoUrl!,
    ociRegistry: ociRegistry!,
    helmBin: helmBin!,
    kubectlBin: kubectlBin!,
    kustomizeBin: toolchainPaths().kustomize,
    sopsBin: toolchainPaths().sops,
    cosignBin: toolchainPaths().cosign,
    notationVerifyBin: toolchainPaths().notationVerify,
    processes,
  };
}

/** More than the one cluster `dev up` always had, or another name for it: `dev env` then names each. */
export function runsAFleet(names: string[]): boolean {
  return names.join(',') !== HOME_CLUSTER;
}
