import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HELM_CHART_LAYER } from '../../src/api/chart-fetch.js';
import { accessSecrets, chartAccessFrom } from '../../src/controller/charts/chart-access.js';
import { gitAccessFrom } from '../../src/controller/charts/git/git-access.js';
import { proxySetup } from '../../src/controller/charts/git/git-runner.js';
import { chartLayerOf } from '../../src/controller/charts/oci-registry.js';
import { filterVersions, pickChartVersion } from '../../src/controller/charts/pick-version.js';
import { proxyAccessFrom } from '../../src/controller/charts/proxy-access.js';
import { proxyRoute } from '../../src/controller/charts/proxy-route.js';
import { parseHostPolicy } from '../../src/controller/charts/host-policy.js';

const b64 = (data: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v ?? '').toString('base64')]));

describe('proxySecretRef: the Secret as Flux writes it', () => {
  it('address, username and password; never shown by JSON or inspect', () => {
    const proxy = proxyAccessFrom(b64({ address: 'http://proxy.corp:3128', username: 'ana', password: 's3cret-pw' }), 'shop/proxy', 'spec.chart');
    expect(proxy.url.host).toBe('proxy.corp:3128');
    expect(proxy.basic).toEqual({ username: 'ana', password: 's3cret-pw' });
    expect(JSON.stringify({ proxy })).not.toContain('s3cret-pw');
    expect(JSON.stringify({ proxy })).toContain('[proxy proxy.corp:3128 via Secret shop/proxy]');
  });

  it.each([
    { name: 'no address', data: { username: 'a', password: 'b' }, want: 'Secret shop/proxy (spec.chart.proxySecretRef) has no address' },
    { name: 'not a URL', data: { address: 'http://[bad' }, want: 'address is not a URL' },
    { name: 'https proxy', data: { address: 'https://proxy:3128' }, want: 'address must be an http:// proxy' },
    { name: 'user in the address', data: { address: 'http://a:b@proxy:3128' }, want: 'not in the address' },
    { name: 'a path', data: { address: 'http://proxy:3128/x' }, want: 'host and port only' },
    { name: 'user without password', data: { address: 'http://proxy:3128', username: 'a' }, want: 'needs both username and password, or neither' },
  ])('refused: $name', ({ data, want }) => {
    expect(() => proxyAccessFrom(b64(data), 'shop/proxy', 'spec.chart')).toThrow(want);
  });

  it('a chart source with a proxy: its own cache key, and its password redacted from helm output', () => {
    const chart = { name: 'web', repository: 'https://charts.example.org', proxySecretRef: { name: 'proxy' } };
    const proxied = chartAccessFrom({ chart, namespace: 'shop', proxyData: b64({ address: 'http://p:3128', username: 'u', password: 'pw-1234' }) });
    const direct = chartAccessFrom({ chart: { name: 'web', repository: chart.repository }, namespace: 'shop' });
    expect(proxied.proxy?.url.host).toBe('p:3128');
    expect(proxied.cacheKey).not.toBe(direct.cacheKey);
    expect(accessSecrets(proxied)).toContain('pw-1234');
  });

  it('git: http.proxy in a 0600 config file of its own, never argv or the environment; ssh:// refused', async () => {
    const access = gitAccessFrom({
      url: 'https://git.example.org/a.git',
      namespace: 'shop',
      proxySecretName: 'proxy',
      proxyData: b64({ address: 'http://p:3128', username: 'u', password: 'p"w' }),
    });
    const dir = await mkdtemp(join(tmpdir(), 'helmcrew-proxy-test-'));
    try {
      const env = await proxySetup(dir, access);
      expect(Object.keys(env)).toEqual(['GIT_CONFIG_GLOBAL']);
      expect(await readFile(env.GIT_CONFIG_GLOBAL!, 'utf8')).toBe('[http]\n\tproxy = "http://u:p%22w@p:3128"\n\tproxyAuthMethod = basic\n');
      expect(JSON.stringify(env)).not.toContain('p%22w@');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(() =>
      gitAccessFrom({
        url: 'ssh://git@host/a.git',
        namespace: 'shop',
        secretName: 's',
        secretData: b64({ identity: 'k', known_hosts: 'h' }),
        proxySecretName: 'p',
        proxyData: b64({ address: 'http://p:1' }),
      }),
    ).toThrow('proxySecretRef is for https://');
  });
});

describe('semverFilter: a regular expression over the versions before the range', () => {
  const versions = ['1.0.0', '1.1.0-rc.1', '1.1.0', '2.0.0-rc.1', '2.0.0'];
  it.each([
    { filter: undefined, range: '*', want: '2.0.0' },
    { filter: '^1\\.', range: '*', want: '1.1.0' },
    { filter: '.*-rc.*', range: '>=2.0.0-rc.0', want: '2.0.0-rc.1' },
    { filter: '^1\\.', range: '2.0.0', want: '2.0.0' },
  ])('$filter over $range → $want', ({ filter, range, want }) => {
    expect(pickChartVersion(versions, 'web', range, filter)).toBe(want);
  });

  it('keeps none: says so, naming the filter; does not compile: named', () => {
    expect(() => pickChartVersion(versions, 'web', '*', '^9\\.')).toThrow('chart "web" has no version matching semverFilter "^9\\." (newest: 2.0.0)');
    expect(() => filterVersions(versions, '(')).toThrow('spec.chart.semverFilter "(" is not a regular expression');
  });
});

describe('layerSelector: only helm chart layer can be installed', () => {
  const manifest = (mediaType: string) => ({
    layers: [
      { mediaType: 'application/vnd.cncf.helm.chart.provenance.v1.prov', digest: `sha256:${'a'.repeat(64)}` },
      { mediaType, digest: `sha256:${'b'.repeat(64)}` },
    ],
  });
  it("the chart layer's digest; a manifest without one is named", () => {
    expect(chartLayerOf(manifest(HELM_CHART_LAYER), 'oci://r/c')).toBe(`sha256:${'b'.repeat(64)}`);
    expect(() => chartLayerOf(manifest('application/vnd.oci.image.layer.v1.tar+gzip'), 'oci://r/c')).toThrow(
      'the artifact in oci://r/c has no helm chart layer',
    );
  });
});

describe('a proxy is no way around the host policy', () => {
  const proxyAt = (address: string) => proxyAccessFrom(b64({ address }), 'shop/proxy', 'spec.chart');
  const route = (target: string, proxy: string, allowed: string) =>
    proxyRoute({
      url: new URL(`https://${target}/index.yaml`),
      host: target,
      policy: parseHostPolicy(allowed),
      repository: `https://${target}`,
      proxy: proxyAt(proxy),
      resolve: () => Promise.reject(new Error('no DNS in this test')),
      tls: {},
      timeoutMs: 1000,
    });

  it('a target the policy refuses is refused before the proxy is asked', async () => {
    await expect(route('10.0.0.5', 'http://93.184.216.35:3128', '*')).rejects.toThrow(/^repository https:\/\/10\.0\.0\.5 is not allowed: /);
  });

  it("the proxy's own address passes the policy too", async () => {
    await expect(route('93.184.216.34', 'http://169.254.169.254:3128', '*')).rejects.toThrow(
      /is not allowed: its proxy 169\.254\.169\.254:3128 \(Secret shop\/proxy\): /,
    );
  });
});
