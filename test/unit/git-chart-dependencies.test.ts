import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  allVendored,
  buildKey,
  checkDependencySources,
  declaredDependencies,
  dependencyBuildFailure,
  dependencyFiles,
  type DependencyRepositoryAccess,
} from '../../src/controller/charts/git/chart-dependencies.js';

const where = 'Git repository https://git.example/charts.git at branch main (commit abc1234)';
const anonymous = { insecure: false, cacheKey: 'anonymous' };
const entry = (repository: string, access: DependencyRepositoryAccess['access'] = anonymous, i = 0): DependencyRepositoryAccess => ({
  repository,
  access,
  field: `spec.chart.git.dependencies[${i}]`,
});

describe('Git chart dependencies (pure)', () => {
  const chartYaml = 'apiVersion: v2\nname: web\nversion: 0.1.0\ndependencies:\n  - name: unicorn\n    version: 1.0.0\n    repository: https://charts.example\n';

  it("reads Chart.yaml's dependencies; none is an empty list", () => {
    expect(declaredDependencies(chartYaml, where)).toEqual([{ name: 'unicorn', version: '1.0.0', repository: 'https://charts.example' }]);
    expect(declaredDependencies('name: web\nversion: 1.0.0\n', where)).toEqual([]);
    expect(() => declaredDependencies('dependencies: 3\n', where)).toThrow(/dependencies is not a list/);
  });

  it('charts/ holding every dependency (a folder or an archive) needs no build', () => {
    const deps = declaredDependencies(chartYaml, where);
    expect(allVendored(deps, ['unicorn-1.0.0.tgz'])).toBe(true);
    expect(allVendored(deps, ['unicorn'])).toBe(true);
    expect(allVendored(deps, ['unicorns-1.0.0.tgz', 'other'])).toBe(false);
    expect(allVendored(deps, [])).toBe(false);
  });

  it('refuses repository names the controller does not know and file:// paths leaving the repository', () => {
    const dep = (repository: string) => [{ name: 'db', version: '1', repository }];
    expect(() => checkDependencySources(dep('@stable'), '/c/charts/web', '/c', where)).toThrow(/names the repository @stable.*write its URL/);
    expect(() => checkDependencySources(dep('alias:stable'), '/c/charts/web', '/c', where)).toThrow(/names the repository alias:stable/);
    expect(() => checkDependencySources(dep('file://../../../etc'), '/c/charts/web', '/c', where)).toThrow(/leads outside the repository/);
    expect(() => checkDependencySources(dep('file://../db'), '/c/charts/web', '/c', where)).not.toThrow();
    expect(() => checkDependencySources(dep('ftp://x'), '/c/charts/web', '/c', where)).toThrow(/cannot fetch from/);
  });

  it('credentials go into repositories.yaml and registry.json, each repository its own entry', () => {
    const basic = { ...anonymous, secret: 'apps/login', basic: { username: 'u', password: 'p"w' }, cacheKey: 'k1' };
    const oci = { ...anonymous, secret: 'apps/reg', registryLogins: new Map([['reg.example:5000', { username: 'r', password: 's' }]]), cacheKey: 'k2' };
    const tls = { ...anonymous, certSecret: 'apps/ca', tls: { ca: Buffer.from('CA') }, cacheKey: 'k3' };
    const files = dependencyFiles(
      [entry('https://a.example', basic), entry('oci://reg.example:5000/charts', oci, 1), entry('https://b.example', tls, 2)],
      (n) => `/p/${n}`,
    );
    expect(files['repositories.yaml']).toContain('- name: dependency-0\n  url: "https://a.example"\n  username: "u"\n  password: "p\\"w"');
    expect(files['repositories.yaml']).toContain('- name: dependency-2\n  url: "https://b.example"\n  caFile: "/p/ca-2.crt"');
    expect(files['ca-2.crt']).toEqual(Buffer.from('CA'));
    expect(JSON.parse(files['registry.json'] as string)).toEqual({ auths: { 'reg.example:5000': { auth: Buffer.from('r:s').toString('base64') } } });
  });

  it('a build is per checkout, chart folder and credentials: another set of credentials is another build', () => {
    const a = buildKey('/w/git/x/abc', 'charts/web', [entry('https://a.example', { ...anonymous, cacheKey: 'one' })]);
    expect(buildKey('/w/git/x/abc', 'charts/web', [entry('https://a.example', { ...anonymous, cacheKey: 'one' })])).toBe(a);
    expect(buildKey('/w/git/x/abc', 'charts/web', [entry('https://a.example', { ...anonymous, cacheKey: 'two' })])).not.toBe(a);
    expect(buildKey('/w/git/x/abd', 'charts/web', [])).not.toBe(buildKey('/w/git/x/abc', 'charts/web', []));
  });

  it("helm's failures name the dependency: a missing version, an index not read (with or without a Secret)", () => {
    const deps = declaredDependencies(chartYaml, where);
    const missing = `Error: can't get a valid version for 1 subchart(s): "unicorn" (repository "https://charts.example", version "1.0.0"). Make sure…`;
    expect(dependencyBuildFailure(missing, deps, [], where)).toBe(
      `${where}: dependency unicorn 1.0.0 from https://charts.example not found (no such chart version in the repository)`,
    );
    const hash = createHash('sha256').update('https://charts.example').digest('hex');
    const unlisted = `Error: no cached repository for helm-manager-${hash} found. (try 'helm repo update'): open /w/auth-x/cache/…`;
    expect(dependencyBuildFailure(unlisted, deps, [], where)).toBe(
      `${where}: dependency unicorn 1.0.0 from https://charts.example: could not read the repository's index: unreachable, or it asks for credentials (name a Secret for https://charts.example in spec.chart.git.dependencies)`,
    );
    const listed = `Error: no cached repository for dependency-0 found.`;
    const withSecret = entry('https://charts.example', { ...anonymous, secret: 'apps/login', cacheKey: 'k' });
    expect(dependencyBuildFailure(listed, deps, [withSecret], where)).toBe(
      `${where}: dependency unicorn 1.0.0 from https://charts.example: could not read the repository's index with the credentials in Secret apps/login (spec.chart.git.dependencies[0].secretRef): refused, or unreachable`,
    );
    expect(dependencyBuildFailure('Error: something else', deps, [], where)).toBe(
      `${where}: helm dependency build failed for dependency unicorn 1.0.0 from https://charts.example: Error: something else`,
    );
  });
});
