import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import type { ReleaseHistory, StoredRelease } from '../../src/core/helm-storage/release-storage.js';
import { summarizeHistory } from '../../src/core/helm-storage/release-storage.js';
import type { KubeObject } from '../../src/core/kube/cluster-objects.js';
import { createLogger } from '../../src/core/log.js';
import { releaseTarget } from '../../src/core/release/release-target.js';
import { HelmError } from '../../src/controller/helm/helm-error.js';
import { judgeWhileHelmWaits } from '../../src/controller/reconcile/actions/health-during-helm.js';
import type { PassContext } from '../../src/controller/reconcile/ports/context.js';

const WIDGET_RULES = [
  {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    current: "status.phase == 'Running'",
    failed: "status.phase == 'Broken'",
  },
];

const release = (spec: Partial<HelmRelease['spec']> = {}): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name: 'web', namespace: 'apps', generation: 1 },
  spec: { chart: { repository: 'https://charts.example', name: 'web', version: '1.0.0' }, healthCheckExprs: WIDGET_RULES, ...spec },
});

const widgetManifest = '---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: web\n';

/** Helm's records and the cluster's Widget as the test sets them; the context a pass would give. */
function world() {
  const records: StoredRelease[] = [];
  let widget: KubeObject | undefined;
  const ctx = {
    log: createLogger('unit', 'silent'),
    storage: { history: async (): Promise<ReleaseHistory> => summarizeHistory(records.map((r) => ({ ...r }))) },
    releaseObjects: {
      read: async () => (widget ? { kind: 'found' as const, object: widget, clusterScoped: false } : { kind: 'missing' as const, clusterScoped: false }),
    },
  } as unknown as PassContext;
  return {
    ctx,
    record: (revision: number, status: StoredRelease['status']) =>
      records.push({ name: 'web', namespace: 'apps', revision, status, chartName: 'web', chartVersion: '1.0.0', manifest: widgetManifest } as StoredRelease),
    widget: (phase: string) => {
      widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'web', namespace: 'apps' }, status: { phase } };
    },
  };
}

describe('healthCheckExprs judged while helm waits', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('a Widget of this run’s pending record judged failed stops helm with the expression', async () => {
    const w = world();
    const r = release();
    const judging = judgeWhileHelmWaits(w.ctx, r, releaseTarget(r), 'upgrade', 1, undefined)!;
    w.record(1, 'deployed');
    await vi.advanceTimersByTimeAsync(1000);
    expect(judging.signal.aborted).toBe(false); // helm has not written this run's record yet
    w.record(2, 'pending-upgrade');
    w.widget('Running');
    await vi.advanceTimersByTimeAsync(1000);
    expect(judging.signal.aborted).toBe(false); // current: helm's wait decides
    w.widget('Broken');
    await vi.advanceTimersByTimeAsync(1000);
    expect(judging.signal.aborted).toBe(true);
    const failure = judging.failure();
    expect(failure).toBeInstanceOf(HelmError);
    expect(judging.signal.reason).toBe(failure);
    expect(failure!.stderrExcerpt).toContain(`healthCheckExprs: failed: Widget apps/web: "status.phase == 'Broken'" is true`);
    judging.stop();
  });

  it('an older record (a failed object left by an earlier run) is not judged before helm writes its own', async () => {
    const w = world();
    const r = release();
    w.record(3, 'pending-upgrade'); // left by a helm that is gone: revision 3 is what was read before
    w.widget('Broken');
    const judging = judgeWhileHelmWaits(w.ctx, r, releaseTarget(r), 'upgrade', 3, undefined)!;
    await vi.advanceTimersByTimeAsync(3000);
    expect(judging.signal.aborted).toBe(false);
    judging.stop();
  });

  it('stopped (helm is done), it reads no more and never aborts', async () => {
    const w = world();
    const r = release();
    const judging = judgeWhileHelmWaits(w.ctx, r, releaseTarget(r), 'install', undefined, undefined)!;
    judging.stop();
    w.record(1, 'pending-install');
    w.widget('Broken');
    await vi.advanceTimersByTimeAsync(3000);
    expect(judging.signal.aborted).toBe(false);
  });

  it('the operation’s own cancel (a newer generation) still reaches helm through the signal', async () => {
    const w = world();
    const r = release();
    const operation = new AbortController();
    const judging = judgeWhileHelmWaits(w.ctx, r, releaseTarget(r), 'install', undefined, operation.signal)!;
    operation.abort();
    expect(judging.signal.aborted).toBe(true);
    expect(judging.failure()).toBeUndefined();
    judging.stop();
  });

  it.each([
    ['no expressions', release({ healthCheckExprs: undefined })],
    ['the action does not wait', release({ install: { disableWait: true } })],
  ])('nothing to judge (%s): no judge, helm gets the operation’s signal', (_case, r) => {
    expect(judgeWhileHelmWaits(world().ctx, r, releaseTarget(r), 'install', undefined, undefined)).toBeUndefined();
  });
});
