import { describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { waitForChecks } from '../support/checks.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';

/**
 * Issue 5, "values reach helm exactly as declared": for each tricky spec, helm's stored config
 * is what was declared, and once Ready, repeated checks start no helm and make no revision.
 */
describe('values reach helm exactly as declared', () => {
  const { env, kubeConfig } = testEnv();
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const { namespace, ctl } = namespaceWithController('exact');
  const chart = (version = '1.0.0') => ({ repository: env.chartRepoUrl, name: 'unicorn', version });

  // valuesFrom YAML is written for helm, so it is read as helm reads it: YAML 1.1 and merge keys.
  const helmYaml = [
    'defaults: &defaults',
    '  enabled: yes',
    '  mode: on',
    '  retries: 0b11',
    '  size: 1_000',
    'extra:',
    '  <<: *defaults',
    '  mode: off',
    '  octal: 012',
    '  day: 2001-12-14',
    '  n: quoted key',
    '',
  ].join('\n');
  const fromHelmYaml = {
    defaults: { enabled: true, mode: true, retries: 3, size: 1000 },
    extra: { enabled: true, mode: false, retries: 3, size: 1000, octal: 10, day: '2001-12-14', false: 'quoted key' },
  };

  const table: Array<{ name: string; spec: HelmReleaseSpec; want: Record<string, unknown>; chartVersion?: string }> = [
    {
      name: 'yaml11-strings',
      spec: {
        chart: chart(),
        values: {
          extra: {
            on: 'on',
            yes: 'yes',
            off: 'off',
            y: 'y',
            n: 'n',
            thousand: '1_000',
            binary: '0b11',
            octal: '0o17',
            legacyOctal: '012',
            tilde: '~',
            nullText: 'null',
            exp: '1e3',
            day: '2001-12-14',
            time: '190:20:30',
          },
          n: 'key n',
          y: 'key y',
          on: 'key on',
        },
      },
      want: {
        extra: {
          on: 'on',
          yes: 'yes',
          off: 'off',
          y: 'y',
          n: 'n',
          thousand: '1_000',
          binary: '0b11',
          octal: '0o17',
          legacyOctal: '012',
          tilde: '~',
          nullText: 'null',
          exp: '1e3',
          day: '2001-12-14',
          time: '190:20:30',
        },
        n: 'key n',
        y: 'key y',
        on: 'key on',
      },
    },
    {
      name: 'typed-values',
      spec: {
        chart: chart(),
        values: { extra: { nothing: null, big: 12345678901234567000, thousand: 1e3, half: 0.5, negative: -12, yes: true, list: [1, 'on', null, 2.25] } },
      },
      want: { extra: { nothing: null, big: 12345678901234567000, thousand: 1000, half: 0.5, negative: -12, yes: true, list: [1, 'on', null, 2.25] } },
    },
    {
      name: 'unicode',
      spec: {
        chart: chart(),
        values: {
          extra: {
            lineSeparator: 'a\u2028b',
            paragraph: 'a\u2029b',
            nextLine: 'a\u0085b',
            c1: 'a\u0080\u009fb',
            del: 'a\u007fb',
            bom: '\ufeffx',
            unicorn: '🦄 ünïcödé',
            tab: 'a\tb',
            newline: 'a\nb',
          },
        },
      },
      want: {
        extra: {
          lineSeparator: 'a\u2028b',
          paragraph: 'a\u2029b',
          nextLine: 'a\u0085b',
          c1: 'a\u0080\u009fb',
          del: 'a\u007fb',
          bom: '\ufeffx',
          unicorn: '🦄 ünïcödé',
          tab: 'a\tb',
          newline: 'a\nb',
        },
      },
    },
    {
      name: 'helm-yaml-from-configmap',
      spec: { chart: chart(), valuesFrom: [{ kind: 'ConfigMap', name: 'helm-yaml' }] },
      want: fromHelmYaml,
    },
    {
      // a key JavaScript treats specially: assigned plainly, it would set a prototype and vanish
      name: 'proto-key',
      spec: { chart: chart(), values: JSON.parse('{"extra":{"__proto__":{"kept":"yes"},"constructor":"c"}}') as Record<string, unknown> },
      want: JSON.parse('{"extra":{"__proto__":{"kept":"yes"},"constructor":"c"}}') as Record<string, unknown>,
    },
    { name: 'v-prefixed', spec: { chart: chart('v1.1.0') }, want: {}, chartVersion: 'v1.1.0' },
    { name: 'build-metadata', spec: { chart: chart('1.0.0+build.1') }, want: {}, chartVersion: '1.0.0+build.1' },
  ];

  it('each tricky spec becomes Ready with helm’s stored config equal to what was declared', async () => {
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'helm-yaml' }, data: { 'values.yaml': helmYaml } } });
    const generations = await Promise.all(
      table.map((row) => applyHelmRelease(kubeConfig, helmReleaseObject(namespace, row.name, { ...row.spec, interval: '1s' }))),
    );
    for (const [i, row] of table.entries()) {
      const release = await waitForReconciled(kubeConfig, namespace, row.name, generations[i]!);
      const ready = release.status?.conditions?.find((c) => c.type === 'Ready');
      expect(ready?.status, `${row.name}: ${ready?.message}`).toBe('True');
      const deployed = (await storage.history(namespace, row.name)).deployed;
      expect({ name: row.name, config: deployed?.config }).toEqual({ name: row.name, config: row.want });
      if (row.chartVersion) expect(deployed?.chartVersion).toBe(row.chartVersion);
    }
  });

  it('once Ready, repeated checks start no helm and create no revision', async () => {
    const helmRunsBefore = (await ctl.helm.invocations()).length;
    // Several periodic checks (interval 1s, resync tick 500 ms) of every release, seen in the
    // check ledger (a quiet check writes nothing to the API server).
    const checks = await waitForChecks(
      env.redisUrl,
      ctl.prefix,
      table.map((row) => `${namespace}/${row.name}`),
      4,
      60_000,
    );
    for (const [name, seen] of checks) expect({ name, enoughChecks: seen.size >= 4 }).toEqual({ name, enoughChecks: true });
    expect((await ctl.helm.invocations()).slice(helmRunsBefore).map((args) => args[0])).toEqual([]);
    expect(await ctl.helm.count('upgrade')).toBe(0);
    for (const row of table) {
      const history = await storage.history(namespace, row.name);
      expect({ name: row.name, revisions: history.releases.map((r) => r.revision) }).toEqual({ name: row.name, revisions: [1] });
    }
  });
});
