// Where the local environment keeps things: the toolchain cache (shared by every checkout on the
// machine, keyed by version) and the state dir (one per environment: certs, logs, data, pids).
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { declareEnv } from '../core/config/registry.js';

/** The local environment's own variables (docs/configuration.md). */
export const DEV_ENV = declareEnv(['dev'], {
  HELMCREW_CACHE: { defaultText: '`~/.cache/helmcrew`', meaning: 'the toolchain cache, shared by every checkout on the machine' },
  HELMCREW_STATE_DIR: { defaultText: '`<repo>/.helmcrew/dev`', meaning: 'the local environment’s state: certificates, logs, data, pids, `env.json`' },
});

// Pinned versions; scripts/build-toolchain.sh has the same defaults and toolchain.ts passes these
// to it explicitly, so the two can never build one version and look for another.
export const K8S_VERSION = 'v1.35.4';
export const ETCD_VERSION = 'v3.6.16';
export const KWOK_VERSION = 'v0.8.0';
export const HELM_VERSION = 'v4.2.4';
export const KUSTOMIZE_VERSION = 'v5.8.2';
export const SOPS_VERSION = 'v3.13.3';
export const AGE_VERSION = 'v1.3.2';
export const COSIGN_VERSION = 'v3.1.3';
/** notation-go, the library tools/notation-verify is built on (its go.mod pins it; the folder is named by it). */
export const NOTATION_GO_VERSION = 'v1.3.2';

/** The checkout this file lives in: src/dev/ and dist/dev/ are both two levels below it. */
export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return DEV_ENV.in(env).raw('HELMCREW_CACHE') || join(homedir(), '.cache', 'helmcrew');
}

export interface ToolchainPaths {
  kubeApiserver: string;
  kubeControllerManager: string;
  kubeScheduler: string;
  kubectl: string;
  etcd: string;
  kwok: string;
  helm: string;
  /** helm's post-renderer (spec.postRenderers, spec.commonMetadata). */
  kustomize: string;
  /** Decrypts SOPS-encrypted valuesFrom documents (spec.decryption). */
  sops: string;
  /** age and age-keygen: the tests make keys and encrypt with them. */
  age: string;
  ageKeygen: string;
  /** Verifies signed OCI charts and images (spec.chart.verify, imageUpdates[].verify); the tests sign with it. */
  cosign: string;
  /** tools/notation-verify (notation-go): verifies Notary Project signatures; the tests sign and make certificates with it. */
  notationVerify: string;
}

export function toolchainPaths(cache: string = cacheDir()): ToolchainPaths {
  const bin = join(cache, 'bin');
  const k8s = join(bin, `k8s-${K8S_VERSION}`);
  return {
    kubeApiserver: join(k8s, 'kube-apiserver'),
    kubeControllerManager: join(k8s, 'kube-controller-manager'),
    kubeScheduler: join(k8s, 'kube-scheduler'),
    kubectl: join(k8s, 'kubectl'),
    etcd: join(bin, `etcd-${ETCD_VERSION}`, 'etcd'),
    kwok: join(bin, `kwok-${KWOK_VERSION}`, 'kwok'),
    helm: join(bin, `helm-${HELM_VERSION}`, 'helm'),
    kustomize: join(bin, `kustomize-${KUSTOMIZE_VERSION}`, 'kustomize'),
    sops: join(bin, `sops-${SOPS_VERSION}`, 'sops'),
    age: join(bin, `age-${AGE_VERSION}`, 'age'),
    ageKeygen: join(bin, `age-${AGE_VERSION}`, 'age-keygen'),
    cosign: join(bin, `cosign-${COSIGN_VERSION}`, 'cosign'),
    notationVerify: join(bin, `notation-verify-${NOTATION_GO_VERSION}`, 'notation-verify'),
  };
}

/** Option first, then HELMCREW_STATE_DIR, then `<repo>/.helmcrew/dev` (git-ignored). */
export function resolveStateDir(option?: string, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(option || DEV_ENV.in(env).raw('HELMCREW_STATE_DIR') || join(REPO_ROOT, '.helmcrew', 'dev'));
}

/** Fixed layout inside one state dir. */
export function statePaths(stateDir: string) {
  return {
    envFile: join(stateDir, 'env.json'),
    kubeconfig: join(stateDir, 'kubeconfig'),
    certs: join(stateDir, 'certs'),
    logs: join(stateDir, 'logs'),
    pids: join(stateDir, 'pids'),
    etcdData: join(stateDir, 'etcd'),
    kwokConfig: join(stateDir, 'kwok.yaml'),
    redisDir: join(stateDir, 'redis'),
    /** The API server's audit log of Secret LISTs (control-plane.ts), one JSON object a line. */
    auditLog: join(stateDir, 'kube-apiserver-audit.log'),
    auditPolicy: join(stateDir, 'audit-policy.yaml'),
  };
}
