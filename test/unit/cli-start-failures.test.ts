import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { kubeconfigSource } from '../../src/core/kube/client.js';
import { unreachableReason } from '../../src/core/kube/errors.js';

const root = resolve(import.meta.dirname, '../..');

/** Runs `helmcrew …` as a new user would, with only the given environment. */
function helmcrew(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(root, 'bin/helmcrew.js'), ...args],
      { cwd: root, env: { PATH: process.env.PATH ?? '', ...env } },
      (error, stdout, stderr) => {
        done({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
      },
    );
  });
}

const KUBECONFIG_TO = (server: string) => `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server}", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: not-a-secret}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`;

const OUTSIDE_A_CLUSTER = [
  { name: 'no kubeconfig anywhere', kubeconfig: undefined, want: /^helmcrew: no kubeconfig found: set KUBECONFIG to your cluster's kubeconfig file/ },
  {
    name: 'KUBECONFIG names no file',
    kubeconfig: '/nonexistent/kubeconfig',
    want: /^helmcrew: KUBECONFIG names \/nonexistent\/kubeconfig, which does not exist/,
  },
  { name: 'a kubeconfig that is not YAML', kubeconfig: 'broken', want: /^helmcrew: cannot read .*broken \(KUBECONFIG\): / },
  {
    name: 'an API server nobody answers at',
    kubeconfig: 'unreachable',
    want: /^helmcrew: cannot reach a server \(connect ECONNREFUSED 127\.0\.0\.1:\d+\): .*KUBECONFIG/,
  },
] as const;

/** `helmcrew release status foo` with a fresh HOME and the case's kubeconfig. */
async function releaseOutsideACluster(kubeconfig: (typeof OUTSIDE_A_CLUSTER)[number]['kubeconfig']) {
  const home = await mkdtemp(join(tmpdir(), 'helmcrew-home-'));
  const env: Record<string, string> = { HOME: home };
  if (kubeconfig === 'broken') await writeFile((env.KUBECONFIG = join(home, 'broken')), 'clusters: [\n');
  else if (kubeconfig === 'unreachable') await writeFile((env.KUBECONFIG = join(home, 'config')), KUBECONFIG_TO('https://127.0.0.1:45821'));
  else if (kubeconfig) env.KUBECONFIG = kubeconfig;
  return helmcrew(['release', 'status', 'foo'], env);
}

async function withoutACluster(...args: string[]) {
  return helmcrew(['release', ...args], { HOME: await mkdtemp(join(tmpdir(), 'helmcrew-home-')) });
}

// Each case is a process of its own, which spends its time starting node: all of them start at
// once, before the first test, and each test judges its own (60 s: five node processes share the cores).
const started = new Map<string, Promise<{ code: number; stdout: string; stderr: string }>>();
beforeAll(() => {
  for (const { name, kubeconfig } of OUTSIDE_A_CLUSTER) started.set(name, releaseOutsideACluster(kubeconfig));
  started.set('typo', withoutACluster('rollbak', 'unicorn'));
  started.set('help', withoutACluster('help'));
  started.set('help rollback', withoutACluster('help', 'rollback'));
});

describe('helmcrew release outside a working cluster: one line that says what to set', () => {
  it.each(OUTSIDE_A_CLUSTER)(
    '$name',
    async ({ name, want }) => {
      const { code, stderr } = await started.get(name)!;
      expect(code).not.toBe(0);
      const lines = stderr.split('\n').filter((line) => line && !line.startsWith('npm warn'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(want);
    },
    60_000,
  );
});

describe('helmcrew release with a typo and no cluster at all', () => {
  it('answers the typo, not the missing kubeconfig', async () => {
    const { code, stderr } = await started.get('typo')!;
    expect(code).toBe(2);
    const lines = stderr.split('\n').filter((line) => line && !line.startsWith('npm warn'));
    expect(lines).toEqual(['helmcrew release: unknown command "rollbak" — did you mean "rollback"?']);
  }, 60_000);
});

describe('helmcrew release help with no cluster at all', () => {
  it('prints every verb', async () => {
    const { code, stdout, stderr } = await started.get('help')!;
    expect({ code, stderr: stderr.split('\n').filter((line) => line && !line.startsWith('npm warn')) }).toEqual({ code: 0, stderr: [] });
    expect(stdout).toMatch(/^\/release commands/);
    expect(stdout).toMatch(/^ {2}rollback /m);
    expect(stdout).toMatch(/^ {2}suspend /m);
  }, 60_000);

  it("prints one verb's usage", async () => {
    const { code, stdout } = await started.get('help rollback')!;
    expect(code).toBe(0);
    expect(stdout.trim()).toMatch(/^usage: rollback /);
  }, 60_000);
});

describe('kubeconfigSource: kubectl’s order', () => {
  const exists = (present: string[]) => (path: string) => present.includes(path);
  it.each([
    { name: 'KUBECONFIG first', path: '/a', present: ['/a', '/h/.kube/config'], env: {}, want: { kind: 'file', path: '/a' } },
    { name: 'the first existing file of a KUBECONFIG list', path: '/a:/b', present: ['/b'], env: {}, want: { kind: 'file', path: '/b' } },
    { name: '~/.kube/config', path: undefined, present: ['/h/.kube/config'], env: {}, want: { kind: 'file', path: '/h/.kube/config' } },
    {
      name: 'in a pod',
      path: undefined,
      present: ['/var/run/secrets/kubernetes.io/serviceaccount/token'],
      env: { KUBERNETES_SERVICE_HOST: '10.0.0.1' },
      want: { kind: 'in-cluster' },
    },
    { name: 'nothing', path: undefined, present: [], env: {}, want: { kind: 'none', defaultPath: '/h/.kube/config' } },
  ])('$name', ({ path, present, env, want }) => {
    expect(kubeconfigSource(path, { HOME: '/h', ...env }, exists(present))).toEqual(want);
  });
});

describe('unreachableReason', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
  it.each([
    { name: 'the error itself', given: refused, want: 'connect ECONNREFUSED 127.0.0.1:6443' },
    { name: "fetch's wrapper", given: new TypeError('fetch failed', { cause: refused }), want: 'connect ECONNREFUSED 127.0.0.1:6443' },
    {
      name: 'a code the message does not name',
      given: Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }),
      want: 'DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate',
    },
    { name: 'a bug', given: new TypeError('x is undefined'), want: undefined },
    { name: 'not an error', given: 'ECONNREFUSED', want: undefined },
  ])('$name', ({ given, want }) => {
    expect(unreachableReason(given)).toBe(want);
  });
});

describe('helmcrew web: a bad setting stops start-up with one line naming the variable', () => {
  it.each<{ name: string; env: Record<string, string>; want: RegExp }>([
    { name: 'no public address', env: {}, want: /^helmcrew: HELMCREW_WEB_URL is not set/ },
    { name: 'plain http off loopback', env: { HELMCREW_WEB_URL: 'http://helmcrew.example.org' }, want: /^helmcrew: HELMCREW_WEB_URL must be an https URL/ },
    { name: 'no provider', env: { HELMCREW_WEB_URL: 'https://helmcrew.example.org' }, want: /^helmcrew: no sign-in provider: set HELMCREW_OIDC_ISSUER_URL/ },
  ])(
    '$name',
    async ({ env, want }) => {
      const { code, stderr } = await helmcrew(['web'], { HOME: tmpdir(), REDIS_URL: 'redis://127.0.0.1:1', ...env });
      const lines = stderr.split('\n').filter((line) => line && !line.startsWith('npm warn'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(want);
      expect(code).toBe(2);
    },
    30_000,
  );
});
