import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { createLogger } from '../../src/core/log.js';
import type { Proposal } from '../../src/core/proposals/proposal.js';
import type { DesiredRelease } from '../../src/core/release/desired-release.js';
import { SecretValues } from '../../src/core/release/secret-values.js';
import { readableDiff } from '../../src/core/release/readable-diff.js';
import { summarizeReadableDiff } from '../../src/core/release/readable-diff-text.js';
import { diffLines, DIFF_LIMITS, proposalDiff, withProposedValues, type Previewer } from '../../src/controller/proposals/proposal-diff.js';

const desired = (values: Record<string, unknown>): DesiredRelease => ({
  chartName: 'web',
  chartVersion: '1.0.0',
  values,
  valuesDigest: 'd',
  secrets: new SecretValues(),
});

const proposal = (over: Partial<Proposal> = {}): Proposal => ({
  id: 'p-1',
  kind: 'image',
  release: { cluster: 'default', namespace: 'shop', name: 'web' },
  values: [
    { valuesPath: 'image.tag', from: '1.4.2', to: '1.5.0' },
    { valuesPath: 'sidecars[0].digest', to: 'sha256:ab' },
  ],
  summary: 'image registry.example.com/shop/web 1.4.2 → 1.5.0',
  subject: 'default/shop/web image registry.example.com/shop/web',
  facts: { required: 2, expiresAt: 10 },
  state: { phase: 'open', approvers: [] },
  createdAt: 1,
  ...over,
});

const release = {
  apiVersion: 'helmcrew.dev/v1',
  kind: 'HelmRelease',
  metadata: { namespace: 'shop', name: 'web' },
  spec: { chart: { repository: 'https://charts.example.com', name: 'web', version: '1.x' } },
} as unknown as HelmRelease;

const log = createLogger('test', 'silent');

describe('a proposal’s plan diff', () => {
  it('renders the desired release with the proposal’s values at their paths, the rest untouched', () => {
    const before = desired({ image: { repository: 'registry.example.com/shop/web', tag: '1.4.2' }, replicas: 2 });
    const after = withProposedValues(before, proposal());
    expect(after.values).toEqual({ image: { repository: 'registry.example.com/shop/web', tag: '1.5.0' }, replicas: 2, sidecars: [{ digest: 'sha256:ab' }] });
    expect(before.values).toEqual({ image: { repository: 'registry.example.com/shop/web', tag: '1.4.2' }, replicas: 2 });
  });

  it('keeps the preview’s lines and the rest while they fit', () => {
    const lines = ['objects: 1 changed', '~ Deployment shop/web: /spec/template/spec/containers/0/image: web:1.4.2 → web:1.5.0'];
    expect(diffLines({ ok: true, from: 'revision 3', to: 'web 1.0.0', lines, rest: ['~ Service shop/web: /spec/ports'] })).toEqual([
      ...lines,
      '~ Service shop/web: /spec/ports',
    ]);
  });

  it('shows every object with its values from the preview’s readable diff, once, when the controller sends one', () => {
    const cm = (color: string) =>
      `---\n${JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'page', namespace: 'shop' }, data: { a: color, b: color, c: color, d: color } })}\n`;
    const diff = readableDiff(cm('pink'), cm('blue'));
    const summary = summarizeReadableDiff(diff);
    const lines = diffLines({ ok: true, from: 'r', to: 't', ...summary, diff });
    expect(lines).toEqual([
      'objects: 1 changed',
      '~ ConfigMap shop/page',
      '  data.a: pink → blue',
      '  data.b: pink → blue',
      '  data.c: pink → blue',
      '  data.d: pink → blue',
    ]);
  });

  it('cuts a long diff to the limits with a note saying how much was cut, and long lines with …', () => {
    const rest = Array.from({ length: 200 }, (_, i) => `~ ConfigMap shop/config-${i}: /data/key`);
    const cut = diffLines({ ok: true, from: 'r', to: 't', lines: ['objects: 200 changed', `~ Secret shop/${'s'.repeat(1000)}`], rest });
    expect(cut).toHaveLength(DIFF_LIMITS.lines);
    expect(cut[1]).toHaveLength(DIFF_LIMITS.lineChars);
    expect(cut[1]!.endsWith('…')).toBe(true);
    expect(cut.at(-1)).toBe(`… and ${202 - (DIFF_LIMITS.lines - 1)} more lines, cut to keep the proposal small`);
    expect(cut.join('\n').length).toBeLessThanOrEqual(DIFF_LIMITS.chars);
    // By characters too: few lines, each long.
    const wide = diffLines({ ok: true, from: 'r', to: 't', lines: Array.from({ length: 20 }, () => 'x'.repeat(290)), rest: [] });
    expect(wide.join('\n').length).toBeLessThanOrEqual(DIFF_LIMITS.chars);
    expect(wide.at(-1)).toMatch(/^… and \d+ more lines/);
  });

  it('when no diff can be made, one line says why', () => {
    expect(diffLines({ ok: false, message: 'chart web 1.0.0 not found in https://charts.example.com' })).toEqual([
      'no diff could be made: chart web 1.0.0 not found in https://charts.example.com',
    ]);
  });

  it('asks the preview with the proposal over the desired release, the chart version a chart proposal names, and never throws', async () => {
    const asked: Array<{ version: string; values: Record<string, unknown> }> = [];
    const preview: Previewer = (r, adjust) => {
      asked.push({ version: r.spec.chart.version!, values: adjust(desired({ image: { tag: '1.4.2' } })).values });
      return Promise.resolve({ ok: true, from: 'r', to: 't', lines: ['objects: 1 changed'], rest: [] });
    };
    expect(await proposalDiff(preview, release, proposal({ values: [{ valuesPath: 'image.tag', to: '1.5.0' }] }), log)).toEqual(['objects: 1 changed']);
    await proposalDiff(preview, release, proposal({ values: [], chartVersion: { from: '1.0.0', to: '1.1.0' } }), log);
    expect(asked).toEqual([
      { version: '1.x', values: { image: { tag: '1.5.0' } } },
      { version: '1.1.0', values: { image: { tag: '1.4.2' } } },
    ]);
    const failing: Previewer = () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.1:443 password=hunter2'));
    expect(await proposalDiff(failing, release, proposal(), log)).toEqual([
      "no diff could be made: the controller could not compute it; the controller's log says why",
    ]);
  });

  it('a promotion renders its chart version and its values together; a preview that refuses gives the one line', async () => {
    const asked: Array<{ version: string; values: Record<string, unknown> }> = [];
    const preview: Previewer = (r, adjust) => {
      asked.push({ version: r.spec.chart.version!, values: adjust(desired({ image: { tag: '1.4.2' } })).values });
      return Promise.resolve({ ok: false, message: 'chart web 2.0.0 not found in https://charts.example.com' });
    };
    const promotion = proposal({
      kind: 'promotion',
      values: [{ valuesPath: 'image.tag', from: '1.4.2', to: '1.5.0' }],
      chartVersion: { from: '1.0.0', to: '2.0.0' },
    });
    expect(await proposalDiff(preview, release, promotion, log)).toEqual(['no diff could be made: chart web 2.0.0 not found in https://charts.example.com']);
    expect(asked).toEqual([{ version: '2.0.0', values: { image: { tag: '1.5.0' } } }]);
    // The release the watcher holds is not changed by it.
    expect(release.spec.chart.version).toBe('1.x');
  });
});
