import { Environment } from '@marcbachmann/cel-js';

/**
 * User CEL (spec.healthCheckExprs, dependsOn[].readyExpr) compiled and evaluated with
 * @marcbachmann/cel-js, the way fluxcd/pkg runtime/cel does with cel-go: a parse error or an
 * expression whose type cannot be a bool is refused before anything runs; evaluation is pure.
 */

/** A compiled expression: evaluate it with the variables it was compiled for. */
export interface CelProgram {
  readonly source: string;
  evaluate(variables: Record<string, unknown>): CelResult;
}

export type CelResult = { ok: true; value: boolean } | { ok: false; error: string };

export type CelCompiled = { ok: true; program: CelProgram } | { ok: false; error: string };

/** Parse-time bounds: a HelmRelease's expression is short; these stop a pathological one early. */
const LIMITS = { maxAstNodes: 2000, maxDepth: 50, maxListElements: 200, maxMapEntries: 200, maxCallArguments: 16 };

/**
 * `variables`: the names the expression may use (readyExpr: `self`, `dep`), each a map; none:
 * any top-level name is a field of the object judged (healthCheckExprs: `status`, `metadata`…),
 * as Flux's status evaluator does (it cannot declare them: not every kind has spec and status).
 */
export function compileCel(source: string, variables?: readonly string[]): CelCompiled {
  const env = new Environment({ unlistedVariablesAreDyn: variables === undefined, enableOptionalTypes: true, limits: LIMITS });
  for (const name of variables ?? []) env.registerVariable(name, 'map');
  try {
    const checked = env.check(source);
    if (!checked.valid) return { ok: false, error: oneLine(checked.error?.message ?? 'does not type-check') };
    const type = String(checked.type);
    if (type !== 'bool' && type !== 'dyn') return { ok: false, error: `must be a bool expression, this one is ${type}` };
    const parsed = env.parse(source);
    return {
      ok: true,
      program: {
        source,
        evaluate(vars) {
          try {
            const value: unknown = parsed(toCelValue(vars) as Record<string, unknown>);
            return typeof value === 'boolean' ? { ok: true, value } : { ok: false, error: `evaluated to ${describe(value)}, not a bool` };
          } catch (error) {
            return { ok: false, error: oneLine(error instanceof Error ? error.message : String(error)) };
          }
        },
      },
    };
  } catch (error) {
    return { ok: false, error: oneLine(error instanceof Error ? error.message : String(error)) };
  }
}

/**
 * JSON as CEL sees a Kubernetes object: integers are int (cel-js: bigint), as the API server's
 * int64 fields are in cel-go, so `metadata.generation == 2` and `== status.observedGeneration` hold.
 */
export function toCelValue(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCelValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, toCelValue(v)]));
  }
  return value;
}

/** cel-js errors carry a caret drawing of the source over several lines: one line for a condition message. */
function oneLine(message: string): string {
  return (message.split('\n')[0] ?? message).trim();
}

function describe(value: unknown): string {
  if (typeof value === 'bigint') return `${value} (int)`;
  if (typeof value === 'string') return `a string`;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'a map' : `a ${typeof value}`;
}
