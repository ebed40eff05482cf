import type { DriftIgnoreRule } from '../../api/helmrelease.js';
import type { ClusterObjects, KubeObject } from '../../core/kube/cluster-objects.js';
import { apiErrorMessage } from '../../core/kube/errors.js';
import type { ResourceInfo } from '../../core/kube/resource-discovery.js';
import { driftedFields, ignoredPaths, ignoresWholeObject } from './drift-compare.js';
import { correctionBody } from './correction-body.js';
import { describeObject, manifestObjects } from './manifest-objects.js';

/** One release's objects as Helm last applied them: the newest deployed record's manifest. */
export interface DriftTarget {
  /** The HelmRelease's key, for the caches and logs. */
  key: string;
  releaseName: string;
  namespace: string;
  revision: number;
  manifest: string;
  ignore?: DriftIgnoreRule[];
  /** The identity the HelmRelease acts as (Impersonate-User), as helm does. */
  user?: string;
}

export interface ObjectDrift {
  /** "Deployment web/unicorn". */
  object: string;
  /** Deleted: the whole object is drift. */
  missing: boolean;
  /** JSON pointers of the fields that differ (none when missing). */
  fields: string[];
}

export interface DriftReport {
  drifted: ObjectDrift[];
  /** Objects that could not be checked (a kind not served, no rights): said in the log, not drift. */
  problems: string[];
  checked: number;
}

export interface CorrectionResult {
  corrected: ObjectDrift[];
  failed: Array<{ object: string; error: string }>;
}

/** How many objects of one release are checked at once: a large chart must not burst the API server. */
const OBJECT_CONCURRENCY = 4;
/** Bounds the memos: parsed manifests (one per release) and objects found clean (a few hundred bytes each). */
const MAX_MANIFESTS = 10_000;
const MAX_CLEAN_ENTRIES = 50_000;

/** An object of the manifest by kind and name. */
type ObjectRef = Pick<KubeObject, 'apiVersion' | 'kind'> & { metadata: { name: string; namespace?: string } };

interface Resolved {
  /** Placed: with the namespace helm put it in. */
  ref: ObjectRef;
  info: ResourceInfo;
  ignore: string[];
  /** The release's namespace. */
  namespace: string;
}

/**
 * Checks and corrects drift with API requests only: per object a GET, and a server-side dry-run
 * apply (as helm's field manager, forcing ownership) only when the object changed since it was
 * last found clean. No helm process. A correction re-applies the drifted objects the same way,
 * for real, keeping the live value of every ignored field.
 */
export class DriftDetector {
  /**
   * Each release's objects by kind and name only, by HelmRelease key (a revision's manifest never
   * changes). Whole parsed objects are ~20 KiB a release: 1000 would keep ~22 MiB for the rare
   * dry run, so a check parses the manifest again only when an object needs one.
   */
  private readonly manifests = new Map<string, { revision: number; refs: ObjectRef[] }>();
  /** Object → the resourceVersion, revision and ignore rules it was last found clean at. */
  private readonly clean = new Map<string, string>();

  constructor(
    private readonly objects: ClusterObjects,
    /** helm's field manager: the base name of the helm binary, as helm 4 derives it. */
    readonly fieldManager: string,
  ) {}

  async check(target: DriftTarget): Promise<DriftReport> {
    const client = this.objects.forUser(target.user);
    const report: DriftReport = { drifted: [], problems: [], checked: 0 };
    const manifest = this.lazyManifest(target);
    await eachLimited(this.refsOf(target), OBJECT_CONCURRENCY, async (ref, index) => {
      const resolved = await this.resolve(client, target, ref, report.problems);
      if (!resolved) return;
      report.checked += 1;
      try {
        const drift = await this.checkObject(client, target, resolved, () => place(manifest(index), resolved));
        if (drift) report.drifted.push(drift);
      } catch (error) {
        report.problems.push(`${describeObject(resolved.ref)}: ${apiErrorMessage(error)}`);
      }
    });
    report.drifted.sort((a, b) => a.object.localeCompare(b.object));
    return report;
  }

  /** Re-applies the drifted objects of `report` (found by check on the same target). */
  async correct(target: DriftTarget, report: DriftReport): Promise<CorrectionResult> {
    const client = this.objects.forUser(target.user);
    const wanted = new Set(report.drifted.map((d) => d.object));
    const result: CorrectionResult = { corrected: [], failed: [] };
    const problems: string[] = [];
    const manifest = this.lazyManifest(target);
    await eachLimited(this.refsOf(target), OBJECT_CONCURRENCY, async (ref, index) => {
      const resolved = await this.resolve(client, target, ref, problems);
      // Named as the check named it: with the namespace helm put it in.
      const name = resolved && describeObject(resolved.ref);
      if (!resolved || !name || !wanted.has(name)) return;
      try {
        const live = await client.get(resolved.info, resolved.ref.metadata.namespace, resolved.ref.metadata.name);
        const body = correctionBody(place(manifest(index), resolved), live, resolved.ignore);
        await client.apply(resolved.info, body, { fieldManager: this.fieldManager, force: true, dryRun: false });
        result.corrected.push(report.drifted.find((d) => d.object === name)!);
      } catch (error) {
        result.failed.push({ object: name, error: apiErrorMessage(error) });
      }
    });
    // An object the check found drifted but that is no longer in the manifest or served: not put back.
    const handled = new Set([...result.corrected, ...result.failed].map((d) => d.object));
    for (const drift of report.drifted)
      if (!handled.has(drift.object))
        result.failed.push({ object: drift.object, error: problems.find((p) => p.startsWith(drift.object)) ?? 'not found in the manifest' });
    return result;
  }

  private parse(target: DriftTarget): KubeObject[] {
    return manifestObjects(target.manifest, { name: target.releaseName, namespace: target.namespace });
  }

  /** The manifest's objects, parsed at the first call (if any) of this check. */
  private lazyManifest(target: DriftTarget): (index: number) => KubeObject {
    let parsed: KubeObject[] | undefined;
    return (index) => (parsed ??= this.parse(target))[index]!;
  }

  private refsOf(target: DriftTarget): ObjectRef[] {
    const memo = this.manifests.get(target.key);
    if (memo?.revision === target.revision) return memo.refs;
    const refs = this.parse(target).map(({ apiVersion, kind, metadata }) => ({
      apiVersion,
      kind,
      metadata: { name: metadata.name, ...(metadata.namespace ? { namespace: metadata.namespace } : {}) },
    }));
    // Deleted releases leave entries behind; a bound keeps a churn of them from growing the memo.
    if (this.manifests.size >= MAX_MANIFESTS) this.manifests.clear();
    this.manifests.set(target.key, { revision: target.revision, refs });
    return refs;
  }

  private async resolve(client: ClusterObjects, target: DriftTarget, ref: ObjectRef, problems: string[]): Promise<Resolved | undefined> {
    const ignore = ignoredPaths(target.ignore, ref);
    if (ignoresWholeObject(ignore)) return undefined;
    const info = await client.resolve(ref.apiVersion, ref.kind);
    if (!info) {
      problems.push(`${describeObject(ref)}: the API server serves no ${ref.kind} in ${ref.apiVersion}`);
      return undefined;
    }
    return { ref: place(ref, { info, namespace: target.namespace }), info, ignore, namespace: target.namespace };
  }

  private async checkObject(
    client: ClusterObjects,
    target: DriftTarget,
    { ref, info, ignore }: Resolved,
    object: () => KubeObject,
  ): Promise<ObjectDrift | undefined> {
    const name = describeObject(ref);
    const live = await client.get(info, ref.metadata.namespace, ref.metadata.name);
    if (!live) return { object: name, missing: true, fields: [] };
    const id = `${target.key}|${ref.apiVersion}|${name}`;
    const fingerprint = `${live.metadata.uid}|${live.metadata.resourceVersion}|${target.revision}|${JSON.stringify(ignore)}`;
    // Unchanged since it was last found clean: the dry run would say the same.
    if (this.clean.get(id) === fingerprint) return undefined;
    const applied = await client.apply(info, object(), { fieldManager: this.fieldManager, force: true, dryRun: true });
    const fields = driftedFields(live, applied, ignore);
    if (fields.length > 0) {
      this.clean.delete(id);
      return { object: name, missing: false, fields };
    }
    if (this.clean.size >= MAX_CLEAN_ENTRIES) this.clean.clear();
    this.clean.set(id, fingerprint);
    return undefined;
  }
}

/** helm puts a namespaced object that names no namespace in the release's; a cluster-scoped one has none. */
function place<T extends ObjectRef>(object: T, { info, namespace }: { info: ResourceInfo; namespace: string }): T {
  const metadata = { ...object.metadata };
  if (info.namespaced) metadata.namespace = object.metadata.namespace ?? namespace;
  else delete metadata.namespace;
  return { ...object, metadata };
}

async function eachLimited<T>(items: readonly T[], limit: number, run: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await run(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
