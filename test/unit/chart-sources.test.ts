import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { ChartRef } from '../../src/api/helmrelease.js';
import { accessSecrets, ChartAccessError, chartAccessFrom, credentialsFor } from '../../src/controller/charts/chart-access.js';
import { FreshCache } from '../../src/controller/charts/fresh-cache.js';
import { DEFAULT_PARSE_LIMITS, parseIndex } from '../../src/controller/charts/index-parser.js';
import { nextPage, ociChartRef, parseChallenge, tagToVersion, versionToTag } from '../../src/controller/charts/oci-registry.js';
import { withPrivateFiles } from '../../src/controller/helm/private-files.js';
import { registryFiles } from '../../src/controller/helm/registry-files.js';
import { isSameRelease } from '../../src/controller/reconcile/decide/release-state.js';
import { CHART_DIGEST_LABEL, chartDigestLabel, releaseLabels } from '../../src/controller/reconcile/decide/ownership.js';
import type { StoredRelease } from '../../src/core/helm-storage/release-storage.js';
import type { DesiredRelease } from '../../src/core/release/desired-release.js';
import { SecretValues } from '../../src/core/release/secret-values.js';
import { notModified } from '../../src/dev/chart-server.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const oci: ChartRef = { repository: 'oci://registry.example.test/charts', name: 'unicorn' };
const http: ChartRef = { repository: 'https://charts.example.test', name: 'unicorn' };

describe('chartAccessFrom', () => {
  it('username + password', () => {
    const access = chartAccessFrom({
      chart: { ...http, secretRef: { name: 'login' } },
      namespace: 'web',
      secretData: { username: b64('u'), password: b64('p4ssw0rd') },
    });
    expect(access).toMatchObject({ secret: 'web/login', basic: { username: 'u', password: 'p4ssw0rd' }, insecure: false });
    expect(credentialsFor(access, 'anything:5000')).toEqual({ username: 'u', password: 'p4ssw0rd' });
  });

  it('.dockerconfigjson: auth or username/password, keys written as URLs; credHelpers ignored', () => {
    const config = {
      auths: { 'https://registry.example.test/v1/': { auth: b64('robot:t0ken:with:colons') }, 'other.test:5000': { username: 'a', password: 'bbbb' } },
      credHelpers: { 'registry.example.test': 'evil' },
    };
    const access = chartAccessFrom({
      chart: { ...oci, secretRef: { name: 'd' } },
      namespace: 'web',
      secretData: { '.dockerconfigjson': b64(JSON.stringify(config)) },
    });
    expect(credentialsFor(access, 'registry.example.test')).toEqual({ username: 'robot', password: 't0ken:with:colons' });
    expect(credentialsFor(access, 'OTHER.test:5000')).toEqual({ username: 'a', password: 'bbbb' });
    expect(credentialsFor(access, 'third.test')).toBeUndefined();
  });

  it.each([
    {
      name: 'password without user',
      chart: { ...http, secretRef: { name: 's' } },
      secretData: { password: b64('x') },
      want: /Secret web\/s \(spec.chart.secretRef\) needs both username and password/,
    },
    {
      name: 'no known key',
      chart: { ...http, secretRef: { name: 's' } },
      secretData: { token: b64('x') },
      want: /has neither username \+ password nor .dockerconfigjson/,
    },
    {
      name: 'dockerconfig for http',
      chart: { ...http, secretRef: { name: 's' } },
      secretData: { '.dockerconfigjson': b64('{}') },
      want: /.dockerconfigjson is for oci:\/\/ registries/,
    },
    { name: 'dockerconfig not JSON', chart: { ...oci, secretRef: { name: 's' } }, secretData: { '.dockerconfigjson': b64('{') }, want: /is not JSON/ },
    {
      name: 'dockerconfig without auths',
      chart: { ...oci, secretRef: { name: 's' } },
      secretData: { '.dockerconfigjson': b64('{"auths":{"x":{}}}') },
      want: /no usable auths entry/,
    },
    {
      name: 'cert without key',
      chart: { ...http, certSecretRef: { name: 'c' } },
      certData: { 'tls.crt': b64('PEM') },
      want: /Secret web\/c \(spec.chart.certSecretRef\) needs both tls.crt and tls.key/,
    },
    { name: 'empty cert Secret', chart: { ...http, certSecretRef: { name: 'c' } }, certData: {}, want: /has neither ca.crt nor tls.crt \+ tls.key/ },
  ] as Array<{ name: string; chart: ChartRef; secretData?: Record<string, string>; certData?: Record<string, string>; want: RegExp }>)(
    '$name → $want',
    ({ chart, secretData, certData, want }) => {
      const read = () => chartAccessFrom({ chart, namespace: 'web', ...(secretData ? { secretData } : {}), ...(certData ? { certData } : {}) });
      expect(read).toThrow(ChartAccessError);
      expect(read).toThrow(want);
    },
  );

  it('prints no credential, and tells credentials apart in cache keys', () => {
    const access = chartAccessFrom({
      chart: { ...http, secretRef: { name: 'login' } },
      namespace: 'web',
      secretData: { username: b64('u'), password: b64('p4ssw0rd') },
    });
    expect(JSON.stringify({ access })).toBe('{"access":"[chart access via Secret web/login]"}');
    expect(inspect(access)).not.toContain('p4ssw0rd');
    const other = chartAccessFrom({
      chart: { ...http, secretRef: { name: 'login' } },
      namespace: 'web',
      secretData: { username: b64('u'), password: b64('other') },
    });
    expect(other.cacheKey).not.toBe(access.cacheKey);
    expect(accessSecrets(access)).toEqual(['p4ssw0rd', b64('u:p4ssw0rd')]);
  });
});

describe('OCI helpers', () => {
  it('ociChartRef', () => {
    expect(ociChartRef('oci://127.0.0.1:5000/charts/', 'unicorn', true)).toEqual({
      host: '127.0.0.1:5000',
      base: 'http://127.0.0.1:5000',
      name: 'charts/unicorn',
      ref: 'oci://127.0.0.1:5000/charts/unicorn',
    });
    expect(ociChartRef('oci://ghcr.io', 'unicorn', false).base).toBe('https://ghcr.io');
  });

  it('tags and versions: + is _ in a tag', () => {
    expect(versionToTag('1.0.0+build.1')).toBe('1.0.0_build.1');
    expect(tagToVersion('1.0.0_build.1')).toBe('1.0.0+build.1');
  });

  it.each([
    { header: 'Basic realm="registry"', want: { scheme: 'basic', params: { realm: 'registry' } } },
    {
      header: 'Bearer realm="https://auth.example.test/token",service="registry.example.test",scope="repository:charts/unicorn:pull"',
      want: {
        scheme: 'bearer',
        params: { realm: 'https://auth.example.test/token', service: 'registry.example.test', scope: 'repository:charts/unicorn:pull' },
      },
    },
    { header: 'Negotiate abc', want: undefined },
    { header: undefined, want: undefined },
  ])('parseChallenge($header)', ({ header, want }) => expect(parseChallenge(header)).toEqual(want));

  it('nextPage follows Link on the same origin only', () => {
    const current = 'https://r.test/v2/charts/unicorn/tags/list?n=1000';
    expect(nextPage({ link: '</v2/charts/unicorn/tags/list?n=1000&last=9.0.0>; rel="next"' }, current)).toBe(
      'https://r.test/v2/charts/unicorn/tags/list?n=1000&last=9.0.0',
    );
    expect(nextPage({ link: '<https://elsewhere.test/x>; rel="next"' }, current)).toBeUndefined();
    expect(nextPage({}, current)).toBeUndefined();
  });

  it('registryFiles: the login for the chart host only, as auths; TLS files when given', () => {
    const access = chartAccessFrom({ chart: { ...oci, secretRef: { name: 's' } }, namespace: 'web', secretData: { username: b64('u'), password: b64('pw') } });
    const files = registryFiles('oci://registry.example.test/charts/unicorn', access);
    expect(JSON.parse(files['registry.json'] as string)).toEqual({ auths: { 'registry.example.test': { auth: b64('u:pw') } } });
    expect(Object.keys(files)).toEqual(['registry.json']);
    expect(JSON.parse(registryFiles('oci://r.test/c/u', undefined)['registry.json'] as string)).toEqual({ auths: {} });
  });
});

describe('a moved tag', () => {
  const digest = (c: string) => `sha256:${c.repeat(64)}`;
  const desired = (chartDigest?: string): DesiredRelease => ({
    chartName: 'unicorn',
    chartVersion: '1.0.0',
    ...(chartDigest ? { chartDigest } : {}),
    values: {},
    valuesDigest: 'd',
    secrets: new SecretValues(),
  });
  const stored = (labels: Record<string, string>): StoredRelease => ({
    name: 'u',
    namespace: 'web',
    revision: 1,
    status: 'deployed',
    chartName: 'unicorn',
    chartVersion: '1.0.0',
    config: {},
    labels,
  });

  it('is a change; the same digest, or a chart without one, is not', () => {
    expect(chartDigestLabel(digest('a'))).toHaveLength(63);
    expect(isSameRelease(stored({ [CHART_DIGEST_LABEL]: chartDigestLabel(digest('a')) }), desired(digest('a')))).toBe(true);
    expect(isSameRelease(stored({ [CHART_DIGEST_LABEL]: chartDigestLabel(digest('a')) }), desired(digest('b')))).toBe(false);
    expect(isSameRelease(stored({}), desired(digest('a')))).toBe(false);
    expect(isSameRelease(stored({}), desired())).toBe(true);
  });

  it('the digest is written with the ownership labels', () => {
    const release = { metadata: { namespace: 'web', name: 'u' } } as Parameters<typeof releaseLabels>[0];
    expect(releaseLabels(release, 30, digest('c'))[CHART_DIGEST_LABEL]).toBe('c'.repeat(63));
    expect(releaseLabels(release, 30)).not.toHaveProperty(CHART_DIGEST_LABEL);
  });
});

describe('FreshCache', () => {
  it('shares one load, reuses an answer younger than the caller asks, revalidates an older one with the previous answer', async () => {
    let now = 0;
    const cache = new FreshCache<string>({ maxBytes: 1000, retainMs: 60_000, failureTtlMs: 1000, now: () => now });
    const loads: Array<string | undefined> = [];
    const load = async (previous: string | undefined) => {
      loads.push(previous);
      return `v${loads.length}`;
    };
    const [a, b] = await Promise.all([cache.get('k', 5000, load, () => 10), cache.get('k', 5000, load, () => 10)]);
    expect([a, b, loads]).toEqual(['v1', 'v1', [undefined]]);
    now = 4000;
    expect(await cache.get('k', 5000, load, () => 10)).toBe('v1');
    expect(await cache.get('k', 3000, load, () => 10)).toBe('v2');
    expect(loads).toEqual([undefined, 'v1']);
  });

  it('remembers a failure briefly', async () => {
    let now = 0;
    const cache = new FreshCache<string>({ maxBytes: 1000, retainMs: 60_000, failureTtlMs: 1000, now: () => now });
    let calls = 0;
    const failing = async () => {
      calls++;
      throw new Error('down');
    };
    await expect(cache.get('k', 5000, failing, () => 1)).rejects.toThrow('down');
    await expect(cache.get('k', 5000, failing, () => 1)).rejects.toThrow('down');
    expect(calls).toBe(1);
    now = 1500;
    await expect(
      cache.get(
        'k',
        5000,
        async () => 'back',
        () => 1,
      ),
    ).resolves.toBe('back');
  });
});

describe('withPrivateFiles', () => {
  it('writes 0600 files in a 0700 folder, and removes the folder after use, also when use fails', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'helmcrew-private-'));
    let seen: Record<string, string> = {};
    await withPrivateFiles(workDir, { 'registry.json': '{}', 'tls.key': Buffer.from('KEY') }, async (paths) => {
      seen = paths;
      expect((await stat(dirname(paths['registry.json']!))).mode & 0o777).toBe(0o700);
      for (const path of Object.values(paths)) expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect(await readFile(paths['tls.key']!, 'utf8')).toBe('KEY');
    });
    expect(existsSync(dirname(seen['registry.json']!))).toBe(false);
    await expect(withPrivateFiles(workDir, { a: 'x' }, () => Promise.reject(new Error('helm failed')))).rejects.toThrow('helm failed');
    expect(await readdir(workDir)).toEqual([]);
    await rm(workDir, { recursive: true });
  });
});

describe('parseIndex keepUrls', () => {
  it('keeps the first URL of each version, in order, only when asked', async () => {
    const yaml = 'entries:\n  a:\n  - version: 1.0.0\n    urls: ["a-1.0.0.tgz", "https://mirror.test/a.tgz"]\n  - version: 2.0.0\n';
    expect((await parseIndex(Buffer.from(yaml), 'repo', { ...DEFAULT_PARSE_LIMITS, keepUrls: true })).get('a')).toEqual({
      versions: ['1.0.0', '2.0.0'],
      urls: ['a-1.0.0.tgz', ''],
      hosts: ['mirror.test'],
    });
    expect((await parseIndex(Buffer.from(yaml), 'repo')).get('a')).not.toHaveProperty('urls');
  });
});

describe('chart-server conditional requests', () => {
  const mtime = new Date('2026-11-25T08:00:00.500Z');
  it.each([
    { headers: { 'if-none-match': 'W/"a-1"' }, want: true },
    { headers: { 'if-none-match': 'W/"b-2", W/"a-1"' }, want: true },
    { headers: { 'if-none-match': 'W/"b-2"', 'if-modified-since': 'Wed, 25 Nov 2026 09:00:00 GMT' }, want: false },
    { headers: { 'if-modified-since': 'Wed, 25 Nov 2026 08:00:00 GMT' }, want: true },
    { headers: { 'if-modified-since': 'Wed, 25 Nov 2026 07:59:59 GMT' }, want: false },
    { headers: {}, want: false },
  ])('$headers → $want', ({ headers, want }) => expect(notModified(headers, 'W/"a-1"', mtime)).toBe(want));
});
