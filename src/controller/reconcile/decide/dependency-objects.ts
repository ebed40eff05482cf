import { HELMRELEASE_API_VERSION, type HelmRelease } from '../../../api/helmrelease.js';
import type { DependencyReference } from '../../../api/dependency.js';
import { API_GROUP, HELMRELEASE_KIND } from '../../../api/vocabulary.js';
import { compileCel, type CelProgram } from '../../../core/cel/cel-expression.js';
import { objectReadiness } from '../../../core/kube/object-readiness.js';
import { isReadyAtGeneration } from '../../../core/release/reconciled.js';
import type { KubeObject } from '../../../core/kube/cluster-objects.js';
import type { ObjectFound } from '../../../core/kube/object-reader.js';

/**
 * Pure: the dependsOn entries as objects to wait for (helm-controller PR #1480's shape: a
 * HelmRelease by default, any kind with apiVersion + kind) and whether one is ready: its readyExpr
 * (Flux v1.4: `dep`, `self`), else its built-in check when `ready` (a HelmRelease Ready at its
 * generation; another kind by kstatus), else that it exists.
 */

export interface DependencyTarget {
  /** Its place in spec.dependsOn, for messages naming the field. */
  index: number;
  apiVersion: string;
  kind: string;
  name: string;
  /** The HelmRelease's own when not given; the reader drops it for a cluster-scoped kind. */
  namespace: string;
  /** A helmcrew HelmRelease: read through the HelmRelease API, part of the dependency graph (cycles, wake-ups). */
  isRelease: boolean;
  ready: boolean;
  readyExpr?: string;
}

export function isReleaseDependency(d: DependencyReference): boolean {
  return (d.kind === undefined || d.kind === HELMRELEASE_KIND) && (d.apiVersion === undefined || d.apiVersion.split('/')[0] === API_GROUP);
}

export function dependencyTargets(release: HelmRelease): DependencyTarget[] {
  return (release.spec?.dependsOn ?? []).map((d, index) => {
    const isRelease = isReleaseDependency(d);
    return {
      index,
      apiVersion: d.apiVersion ?? HELMRELEASE_API_VERSION,
      kind: d.kind ?? HELMRELEASE_KIND,
      name: d.name,
      namespace: d.namespace ?? release.metadata.namespace,
      isRelease,
      ready: d.ready ?? isRelease,
      ...(d.readyExpr !== undefined ? { readyExpr: d.readyExpr } : {}),
    };
  });
}

/** "apps/v1 Deployment web/api", "HelmRelease infra/mesh". */
export function describeTarget(t: Pick<DependencyTarget, 'apiVersion' | 'kind' | 'name' | 'namespace' | 'isRelease'>, clusterScoped = false): string {
  const where = clusterScoped ? t.name : `${t.namespace}/${t.name}`;
  return t.isRelease ? `HelmRelease ${where}` : `${t.apiVersion} ${t.kind} ${where}`;
}

/** The readyExprs that do not compile, each named by its field. */
export function readyExprProblems(release: HelmRelease): string[] {
  return dependencyTargets(release).flatMap((t) => {
    if (t.readyExpr === undefined) return [];
    const compiled = compileReadyExpr(t.readyExpr);
    return compiled.ok ? [] : [`spec.dependsOn[${t.index}].readyExpr: ${compiled.error}`];
  });
}

const compileReadyExpr = (source: string) => compileCel(source, ['self', 'dep']);

export type { ObjectFound };

/** Why a found dependency is not ready yet, or undefined when it is. `self` is this HelmRelease. */
export function dependencyNotReady(target: DependencyTarget, found: { object: KubeObject | HelmRelease }, self: HelmRelease): string | undefined {
  if (target.readyExpr !== undefined) {
    const compiled = compileReadyExpr(target.readyExpr);
    if (!compiled.ok) return `readyExpr does not compile: ${compiled.error}`;
    return exprVerdict(compiled.program, { self, dep: found.object });
  }
  if (!target.ready) return undefined;
  if (target.isRelease) return isReadyAtGeneration(found.object as HelmRelease) ? undefined : 'not Ready at its current generation';
  const readiness = objectReadiness(found.object as KubeObject);
  return readiness.status === 'current' ? undefined : `${readiness.status === 'failed' ? 'failed' : 'not ready'}: ${readiness.message}`;
}

function exprVerdict(program: CelProgram, vars: Record<string, unknown>): string | undefined {
  const result = program.evaluate(vars);
  if (!result.ok) return `readyExpr ${quote(program.source)} could not be evaluated: ${result.error}`;
  return result.value ? undefined : `readyExpr ${quote(program.source)} is false`;
}

function quote(source: string): string {
  const flat = source.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > 160 ? `${flat.slice(0, 157)}...` : flat);
}
