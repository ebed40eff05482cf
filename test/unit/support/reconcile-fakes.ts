import type { HelmRelease } from '../../../src/api/helmrelease.js';
import type { HelmReleaseStatus } from '../../../src/api/helmrelease-status.js';
import { FINALIZER, type ReleaseEvent } from '../../../src/api/vocabulary.js';
import type { EventDetails, ReleaseEventSink } from '../../../src/core/events/release-event-sink.js';
import { summarizeHistory, type ReleaseHistory, type ReleaseStorage, type StoredRelease } from '../../../src/core/helm-storage/release-storage.js';
import type { ReleaseWritten } from '../../../src/core/helm-storage/release-written.js';
import { KubeApiError } from '../../../src/core/kube/api-error.js';
import type { Precondition } from '../../../src/core/kube/helmrelease-api.js';
import type { HoldingFreeze } from '../../../src/core/release/freeze-match.js';
import { OPEN_TENANCY } from '../../../src/core/release/release-target.js';
import { ValuesDigester } from '../../../src/core/release/values-digest.js';
import { createLogger } from '../../../src/core/log.js';
import type { HelmClient, ReleaseRequest } from '../../../src/controller/helm/helm-client.js';
import { HelmCanceledError, HelmError } from '../../../src/controller/helm/helm-error.js';
import { buildReconcileContext } from '../../../src/controller/reconcile/ports/build-context.js';
import type { ControllerContext, FreezeView, HelmReleasePort } from '../../../src/controller/reconcile/ports/context.js';
import { RunningOperations } from '../../../src/controller/reconcile/ports/running-operations.js';

/**
 * In-memory fakes of the reconcile's ports, for driving the stages and actions in unit tests. They
 * share one timeline (`World.timeline`) so a test can say what happened before what: a status
 * write ("status Installing"), a helm run ("helm install"), an Event ("event InstallSucceeded").
 */

export class World {
  readonly timeline: string[] = [];
  now = new Date('2026-11-26T10:00:00.000Z');
  /** Moves the clock (each reading of it moves it by a millisecond, so transition times differ). */
  tick(ms: number): void {
    this.now = new Date(this.now.getTime() + ms);
  }
}

/** The HelmRelease API: objects with a resourceVersion, merge-patched status, 409 on a stale precondition, and a count of status writes. */
export class FakeHelmReleaseApi implements HelmReleasePort {
  private readonly objects = new Map<string, HelmRelease>();
  private version = 100;
  statusWrites = 0;
  conflicts = 0;
  gets = 0;

  constructor(private readonly world: World) {}

  put(release: HelmRelease): HelmRelease {
    const stored = structuredClone({ ...release, metadata: { ...release.metadata, resourceVersion: String(++this.version) } });
    this.objects.set(key(release), stored);
    return structuredClone(stored);
  }

  /** A person (or the bot) changes annotations: no new generation. */
  annotate(namespace: string, name: string, annotations: Record<string, string>): HelmRelease {
    const current = this.objects.get(`${namespace}/${name}`)!;
    return this.put({ ...current, metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, ...annotations } } });
  }

  /** A person changes the spec: a new generation. */
  editSpec(namespace: string, name: string, edit: (spec: HelmRelease['spec']) => void): HelmRelease {
    const current = this.objects.get(`${namespace}/${name}`)!;
    const next = structuredClone(current);
    edit(next.spec);
    next.metadata.generation = (current.metadata.generation ?? 1) + 1;
    return this.put(next);
  }

  peek(namespace: string, name: string): HelmRelease | undefined {
    const found = this.objects.get(`${namespace}/${name}`);
    return found && structuredClone(found);
  }

  async get(namespace: string, name: string): Promise<HelmRelease | undefined> {
    this.gets++;
    return this.peek(namespace, name);
  }

  async list(namespace?: string): Promise<{ items: HelmRelease[] }> {
    return { items: [...this.objects.values()].filter((r) => !namespace || r.metadata.namespace === namespace).map((r) => structuredClone(r)) };
  }

  async patchStatus(release: HelmRelease, status: HelmReleaseStatus, precondition?: Precondition): Promise<HelmRelease> {
    // A round trip: the write is on the server (and in the timeline) only when it answers.
    await roundTrip();
    const current = this.current(release, precondition);
    this.statusWrites++;
    const merged: Record<string, unknown> = { ...(current.status ?? {}) };
    for (const [field, value] of Object.entries(status)) {
      if (value === null) delete merged[field];
      else if (value !== undefined) merged[field] = value;
    }
    const reason = status.conditions?.find((c) => c.type === 'Reconciling')?.reason ?? status.conditions?.find((c) => c.type === 'Ready')?.reason;
    this.world.timeline.push(`status${reason ? ` ${reason}` : ''}`);
    return this.put({ ...current, status: merged });
  }

  async addFinalizer(release: HelmRelease, precondition?: Precondition): Promise<HelmRelease> {
    await roundTrip();
    const current = this.current(release, precondition);
    this.world.timeline.push('finalizer added');
    return this.put({ ...current, metadata: { ...current.metadata, finalizers: [...(current.metadata.finalizers ?? []), FINALIZER] } });
  }

  async removeFinalizer(release: HelmRelease): Promise<void> {
    const current = this.objects.get(key(release));
    if (!current) return;
    this.world.timeline.push('finalizer removed');
    this.put({ ...current, metadata: { ...current.metadata, finalizers: (current.metadata.finalizers ?? []).filter((f) => f !== FINALIZER) } });
  }

  private current(release: HelmRelease, precondition?: Precondition): HelmRelease {
    const current = this.objects.get(key(release));
    if (!current) throw new KubeApiError(404, { reason: 'NotFound' }, 'PATCH', key(release));
    if (precondition && precondition.resourceVersion !== current.metadata.resourceVersion) {
      this.conflicts++;
      throw new KubeApiError(409, { reason: 'Conflict' }, 'PATCH', key(release));
    }
    return current;
  }
}

/** Helm's release records, in memory. */
export class FakeReleaseStorage {
  readonly records: StoredRelease[] = [];
  reads = 0;

  constructor(private readonly world: World) {}

  add(record: Omit<StoredRelease, 'name' | 'namespace'> & { name?: string; namespace?: string }): StoredRelease {
    const stored = { name: 'app', namespace: 'apps', lastDeployed: this.world.now.toISOString(), ...record } as StoredRelease;
    this.records.push(stored);
    return stored;
  }

  of(namespace: string, name: string): StoredRelease[] {
    return this.records.filter((r) => r.namespace === namespace && r.name === name);
  }

  async history(namespace: string, name: string): Promise<ReleaseHistory> {
    this.reads++;
    return summarizeHistory(this.of(namespace, name).map((r) => ({ ...r })));
  }

  /** history(), and the records' identities: name by revision, a version that changes with the record's status and values. */
  async historyAndRecords(namespace: string, name: string): Promise<{ history: ReleaseHistory; records: Array<{ name: string; resourceVersion: string }> }> {
    return { history: await this.history(namespace, name), records: this.identities(namespace, name) };
  }

  /** Reads by name (the record watch named the records): counted apart from `reads`, the LISTs. */
  byNameReads = 0;

  /** historyOfRecords(): the named records, or undefined when one is gone, not of the kind asked for, or `absent` is there. */
  async historyOfRecords(
    namespace: string,
    name: string,
    names: readonly string[],
    opts: { withoutSuperseded?: boolean; absent?: string },
  ): Promise<{ history: ReleaseHistory; records: Array<{ name: string; resourceVersion: string }> } | undefined> {
    this.byNameReads++;
    const secretName = (r: StoredRelease) => `sh.helm.release.v1.${r.name}.v${r.revision}`;
    if (this.of(namespace, name).some((r) => secretName(r) === opts.absent)) return undefined;
    const named = this.of(namespace, name).filter((r) => names.includes(secretName(r)));
    if (named.length !== names.length || (opts.withoutSuperseded && named.some((r) => r.status === 'superseded'))) return undefined;
    const records = named.map((r) => ({ name: secretName(r), resourceVersion: `${r.status}:${JSON.stringify(r.config)}` }));
    return { history: summarizeHistory(named.map((r) => ({ ...r }))), records };
  }

  /** What a watch of the record Secrets shows of the records not superseded (as the settled check's LIST selects). */
  identities(namespace: string, name: string): Array<{ name: string; resourceVersion: string }> {
    return this.of(namespace, name)
      .filter((r) => r.status !== 'superseded')
      .map((r) => ({ name: `sh.helm.release.v1.${r.name}.v${r.revision}`, resourceVersion: `${r.status}:${JSON.stringify(r.config)}` }));
  }

  async afterWrite(namespace: string, name: string): Promise<ReleaseHistory> {
    return this.history(namespace, name);
  }

  async markFailed(namespace: string, name: string, revision: number): Promise<void> {
    this.world.timeline.push(`unlock ${revision}`);
    const record = this.of(namespace, name).find((r) => r.revision === revision);
    if (record) record.status = 'failed';
  }

  withClients(): FakeReleaseStorage {
    return this;
  }
}

export type HelmVerb = 'install' | 'upgrade' | 'rollback' | 'uninstall' | 'test';

/**
 * A helm that records what it is asked and writes the records a real helm would: install and
 * upgrade add a revision (deployed, or failed when told to fail), rollback adds one copying the
 * target, uninstall removes them. `fail` makes a verb fail (once per entry); `hold` keeps an
 * install/upgrade running until the test lets it go (or a newer generation cancels it).
 */
export class RecordingHelm {
  readonly calls: Array<{ verb: HelmVerb | 'pull'; revision?: number }> = [];
  fail: HelmVerb[] = [];
  hold?: { started: () => void; release: Promise<void> };

  constructor(
    private readonly world: World,
    private readonly storage: FakeReleaseStorage,
  ) {}

  async pullChart(chart: { name: string; version: string }): Promise<string> {
    this.calls.push({ verb: 'pull' });
    return `/charts/${chart.name}-${chart.version}.tgz`;
  }

  async showCrds(): Promise<string> {
    return '';
  }

  async install(req: ReleaseRequest & { cancelSignal?: AbortSignal }): Promise<ReleaseWritten> {
    return this.write('install', req);
  }

  async upgrade(req: ReleaseRequest & { cancelSignal?: AbortSignal }): Promise<ReleaseWritten> {
    return this.write('upgrade', req);
  }

  async rollback(req: { releaseName: string; namespace: string; revision: number }): Promise<void> {
    this.ran('rollback', req.revision);
    const records = this.storage.of(req.namespace, req.releaseName);
    const target = records.find((r) => r.revision === req.revision)!;
    for (const r of records) if (r.status === 'deployed') r.status = 'superseded';
    if (this.failing('rollback')) {
      this.storage.add({ ...target, revision: nextRevision(records), status: 'failed' });
      throw helmError('rollback');
    }
    this.storage.add({ ...target, revision: nextRevision(records), status: 'deployed' });
  }

  async uninstall(req: { releaseName: string; namespace: string }): Promise<void> {
    this.ran('uninstall');
    if (this.failing('uninstall')) throw helmError('uninstall');
    const keep = this.storage.records.filter((r) => !(r.namespace === req.namespace && r.name === req.releaseName));
    this.storage.records.splice(0, this.storage.records.length, ...keep);
  }

  async test(): Promise<void> {
    this.ran('test');
    if (this.failing('test')) throw helmError('test');
  }

  async renderDryRun(): Promise<string> {
    return '';
  }

  verbs(): string[] {
    return this.calls.filter((c) => c.verb !== 'pull').map((c) => c.verb);
  }

  private async write(verb: 'install' | 'upgrade', req: ReleaseRequest & { cancelSignal?: AbortSignal }): Promise<ReleaseWritten> {
    const records = this.storage.of(req.namespace, req.releaseName);
    const revision = nextRevision(records);
    this.ran(verb, revision);
    if (this.hold) {
      const hold = this.hold;
      this.hold = undefined;
      hold.started();
      const cancelled = new Promise<never>((_, reject) =>
        req.cancelSignal?.addEventListener('abort', () => reject(new HelmCanceledError(verb)), { once: true }),
      );
      await Promise.race([hold.release, cancelled]);
    }
    const failed = this.failing(verb);
    if (!failed) for (const r of records) if (r.status === 'deployed') r.status = 'superseded';
    this.storage.add({
      name: req.releaseName,
      namespace: req.namespace,
      revision,
      status: failed ? 'failed' : 'deployed',
      chartName: 'app',
      chartVersion: /-([^-/]+)\.tgz$/.exec(req.chartPath)?.[1] ?? '?',
      config: req.values,
      // helmcrew's owner and timeout labels, as --labels writes them
      labels: req.labels,
    });
    if (failed) throw helmError(verb);
    return {};
  }

  private ran(verb: HelmVerb, revision?: number): void {
    this.calls.push({ verb, ...(revision !== undefined ? { revision } : {}) });
    this.world.timeline.push(`helm ${verb}`);
  }

  private failing(verb: HelmVerb): boolean {
    const at = this.fail.indexOf(verb);
    if (at < 0) return false;
    this.fail.splice(at, 1);
    return true;
  }
}

/** A macrotask: anything started meanwhile (helm) runs before the answer arrives. */
function roundTrip(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function nextRevision(records: StoredRelease[]): number {
  return Math.max(0, ...records.map((r) => r.revision)) + 1;
}

function helmError(step: HelmVerb): HelmError {
  return new HelmError({ step, exitCode: 1, stderr: `Error: ${step} failed: the fake was told to fail`, timedOut: false });
}

/** Events, recorded. */
export class RecordingEvents implements ReleaseEventSink {
  readonly recorded: Array<{ event: ReleaseEvent; message: string; details?: EventDetails }> = [];
  constructor(private readonly world: World) {}
  async record(_release: HelmRelease, event: ReleaseEvent, message: string, details?: EventDetails): Promise<void> {
    this.recorded.push({ event, message, ...(details ? { details } : {}) });
    this.world.timeline.push(`event ${event}`);
  }
  names(): string[] {
    return this.recorded.map((e) => e.event);
  }
}

/** The active Freezes, as the controller's watch would answer. */
export class FakeFreezes implements FreezeView {
  holdingNow: HoldingFreeze[] | undefined = [];
  holding(): HoldingFreeze[] | undefined {
    return this.holdingNow;
  }
}

/** The informer's copies. */
export class FakeCache {
  readonly copies = new Map<string, HelmRelease>();
  get(namespace: string, name: string): HelmRelease | undefined {
    return this.copies.get(`${namespace}/${name}`);
  }
}

export interface Fakes {
  world: World;
  api: FakeHelmReleaseApi;
  storage: FakeReleaseStorage;
  helm: RecordingHelm;
  events: RecordingEvents;
  freezes: FakeFreezes;
  cache: FakeCache;
  operations: RunningOperations;
  ctx: ControllerContext;
}

/** The fakes, wired into a context by the same buildReconcileContext the controller uses. */
export function fakeController(): Fakes {
  const world = new World();
  const api = new FakeHelmReleaseApi(world);
  const storage = new FakeReleaseStorage(world);
  const helm = new RecordingHelm(world, storage);
  const events = new RecordingEvents(world);
  const freezes = new FakeFreezes();
  const cache = new FakeCache();
  const operations = new RunningOperations();
  const noKube = {} as ControllerContext['kube'];
  const ctx = buildReconcileContext({
    kube: noKube,
    identities: { forUser: () => noKube } as unknown as ControllerContext['identities'],
    api,
    storage: storage as unknown as ReleaseStorage,
    helm: helm as unknown as HelmClient,
    tenancy: OPEN_TENANCY,
    charts: {
      resolveChart: async (chart: { version?: string }) => {
        world.timeline.push('chart resolved');
        return { version: chart.version ?? '1.0.0' };
      },
      downloadArchive: async () => Buffer.alloc(0),
    },
    digester: new ValuesDigester(Buffer.alloc(32, 7)),
    events,
    log: createLogger('unit', 'silent'),
    now: () => {
      world.tick(1);
      return world.now;
    },
    freezes,
    cache,
    operations,
  });
  return { world, api, storage, helm, events, freezes, cache, operations, ctx };
}

/** A HelmRelease as a person applies it: generation 1, no status, no finalizer yet. */
export function helmRelease(spec: Partial<HelmRelease['spec']> = {}, name = 'app', namespace = 'apps'): HelmRelease {
  return {
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { name, namespace, generation: 1 },
    spec: { chart: { repository: 'https://charts.example', name: 'app', version: '1.0.0' }, ...spec },
  };
}

function key(release: HelmRelease): string {
  return `${release.metadata.namespace}/${release.metadata.name}`;
}
