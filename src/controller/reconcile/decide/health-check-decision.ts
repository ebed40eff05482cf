import type { HealthCheckExpr } from '../../../api/health-checks.js';
import { compileCel, type CelProgram } from '../../../core/cel/cel-expression.js';
import type { KubeObject } from '../../../core/kube/cluster-objects.js';
import type { ObjectFound } from '../../../core/kube/object-reader.js';

/**
 * Pure: spec.healthCheckExprs as Flux v1.5 reads them (fluxcd/pkg runtime/cel StatusEvaluator,
 * RFC 0009): one entry per group and kind (the version is not matched; an entry without kind
 * covers its group, and a kind's own entry wins); an object whose status.observedGeneration is
 * behind its generation is in progress; else inProgress, failed, current are tried in that order
 * and the first true decides; none true, or an expression that cannot be evaluated on this
 * object (a field it names is absent): in progress.
 */

export interface HealthCheck {
  group: string;
  kind?: string;
  current: CelProgram;
  inProgress?: CelProgram;
  failed?: CelProgram;
}

export type CompiledHealthChecks = { ok: true; checks: HealthCheck[] } | { ok: false; problems: string[] };

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.split('/')[0]! : '');

export function compileHealthChecks(exprs: readonly HealthCheckExpr[] | undefined): CompiledHealthChecks {
  const problems: string[] = [];
  const checks: HealthCheck[] = [];
  const seen = new Map<string, number>();
  for (const [i, e] of (exprs ?? []).entries()) {
    const group = groupOf(e.apiVersion);
    const id = `${group}/${e.kind ?? '*'}`;
    const first = seen.get(id);
    if (first !== undefined)
      problems.push(`spec.healthCheckExprs[${i}]: a second entry for ${e.kind ?? 'every kind'} of group "${group}" (the first is [${first}])`);
    seen.set(id, first ?? i);
    const compiled: Partial<Record<'current' | 'inProgress' | 'failed', CelProgram>> = {};
    for (const field of ['current', 'inProgress', 'failed'] as const) {
      const source = e[field];
      if (source === undefined) continue;
      const result = compileCel(source);
      if (result.ok) compiled[field] = result.program;
      else problems.push(`spec.healthCheckExprs[${i}].${field} ${JSON.stringify(flat(source))}: ${result.error}`);
    }
    if (compiled.current) checks.push({ group, ...(e.kind ? { kind: e.kind } : {}), ...compiled, current: compiled.current });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, checks };
}

/** The entry that judges this kind: its own, else its group's. */
export function checkFor(checks: readonly HealthCheck[], apiVersion: string, kind: string): HealthCheck | undefined {
  const group = groupOf(apiVersion);
  return checks.find((c) => c.group === group && c.kind === kind) ?? checks.find((c) => c.group === group && c.kind === undefined);
}

export type ObjectHealth = { status: 'current' | 'in-progress' | 'failed'; message: string };

export function judgeObject(check: HealthCheck, object: KubeObject): ObjectHealth {
  const status = object.status as { observedGeneration?: unknown } | undefined;
  const generation = object.metadata.generation;
  if (typeof status?.observedGeneration === 'number' && typeof generation === 'number' && status.observedGeneration !== generation) {
    return { status: 'in-progress', message: `observedGeneration ${status.observedGeneration} is not generation ${generation}` };
  }
  for (const [program, verdict] of [
    [check.inProgress, 'in-progress'],
    [check.failed, 'failed'],
    [check.current, 'current'],
  ] as const) {
    if (!program) continue;
    const result = program.evaluate(object);
    if (!result.ok) {
      // Flux's evaluator stops at an error and the object stays unknown (waited on): the same here, said.
      return { status: 'in-progress', message: `${JSON.stringify(flat(program.source))} could not be evaluated: ${result.error}` };
    }
    if (result.value) return { status: verdict, message: `${JSON.stringify(flat(program.source))} is true` };
  }
  return { status: 'in-progress', message: `${JSON.stringify(flat(check.current.source))} is not true yet` };
}

/** The release's objects that a health check judges (hooks and CRDs are not in the manifest). */
export function objectsToJudge(checks: readonly HealthCheck[], manifest: readonly KubeObject[], releaseNamespace: string) {
  return manifest
    .filter((o) => checkFor(checks, o.apiVersion, o.kind))
    .map((o) => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace ?? releaseNamespace }));
}

export type ReleaseHealth = { kind: 'current' } | { kind: 'in-progress'; waiting: string[] } | { kind: 'failed'; failed: string[] };

/** All judged objects current: the wait is over; one failed: the action failed; else still waiting, saying on what. */
export function judgeRelease(
  checks: readonly HealthCheck[],
  found: ReadonlyArray<{ ref: { apiVersion: string; kind: string; name: string; namespace: string }; found: ObjectFound }>,
): ReleaseHealth {
  const waiting: string[] = [];
  const failed: string[] = [];
  for (const { ref, found: f } of found) {
    const name = `${ref.kind} ${f.kind !== 'unreadable' && f.clusterScoped ? '' : `${ref.namespace}/`}${ref.name}`;
    if (f.kind === 'missing') waiting.push(`${name}: not found`);
    else if (f.kind === 'unreadable') waiting.push(`${name}: ${f.message}`);
    else {
      const check = checkFor(checks, ref.apiVersion, ref.kind);
      if (!check) continue;
      const health = judgeObject(check, f.object);
      if (health.status === 'failed') failed.push(`${name}: ${health.message}`);
      else if (health.status === 'in-progress') waiting.push(`${name}: ${health.message}`);
    }
  }
  if (failed.length > 0) return { kind: 'failed', failed };
  return waiting.length > 0 ? { kind: 'in-progress', waiting } : { kind: 'current' };
}

function flat(source: string): string {
  const one = source.replace(/\s+/g, ' ').trim();
  return one.length > 160 ? `${one.slice(0, 157)}...` : one;
}
