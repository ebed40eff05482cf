import type { HelmRelease } from '../../../api/helmrelease.js';
import { ReleaseEvent } from '../../../api/vocabulary.js';
import { compileHealthChecks } from '../decide/health-check-decision.js';
import type { PassContext } from '../ports/context.js';
import { reportRefused } from './refuse.js';

/**
 * spec.healthCheckExprs are compiled before helm runs (the API server cannot compile user CEL in
 * a CRD rule): one that does not compile stops the install or upgrade with Ready=False
 * InvalidCELExpression naming the field, the expression and the error, as Flux does; nothing is
 * retried until the spec changes. true: refused (status written, one Event).
 */
export async function refuseInvalidHealthChecks(ctx: PassContext, release: HelmRelease): Promise<boolean> {
  const compiled = compileHealthChecks(release.spec.healthCheckExprs);
  if (compiled.ok) return false;
  const message = `${compiled.problems.join('; ')}; fix the expression (CEL over the object's fields: status, metadata, spec…)`;
  await reportRefused(ctx, release, ReleaseEvent.InvalidCELExpression, message);
  return true;
}
