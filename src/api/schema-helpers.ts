import { Type, type TSchema, type TUnsafe, type SchemaOptions } from '@sinclair/typebox';

/**
 * Small builders that keep TypeBox schemas "structural" in Kubernetes' sense: no `const`,
 * `anyOf` of literals, `patternProperties` or `additionalProperties: false`, which the API
 * server refuses in a CRD.
 */

export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** A Go duration as the API server and Flux spell it: 30s, 5m, 1h30m, 1.5h. */
export const DURATION_PATTERN = '^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$';

export function Duration(options: SchemaOptions = {}) {
  return Type.String({ pattern: DURATION_PATTERN, maxLength: 32, ...options });
}

/**
 * A Duration between `min` and `max` (Go spellings, which CEL's duration() parses too), so the
 * API server refuses `interval: 0s` or a timeout that would overflow a timer, naming the field.
 */
export function BoundedDuration(min: string, max: string, options: SchemaOptions = {}) {
  return Duration({
    ...options,
    ...celRules({
      rule: `duration(self) >= duration('${min}') && duration(self) <= duration('${max}')`,
      message: `must be between ${min} and ${max}`,
    }),
  });
}

/** Arbitrary YAML (Helm values): kept as given. */
export function FreeFormObject(options: SchemaOptions = {}): TUnsafe<Record<string, unknown>> {
  return Type.Unsafe<Record<string, unknown>>({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, ...options });
}

export interface CelRule {
  rule: string;
  message: string;
  fieldPath?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
}

/** CEL rules for what a schema alone cannot say; the API server evaluates them on every write. */
export function celRules(...rules: CelRule[]): { 'x-kubernetes-validations': CelRule[] } {
  return { 'x-kubernetes-validations': rules };
}

/** A DNS-1123 label, the shape of release names and namespaces. */
export const DNS_LABEL_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

/** Strips TypeBox's symbols and ids so what is left is plain OpenAPI v3 for a CRD. */
export function toOpenApi(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key === '$id' ? undefined : value))) as Record<string, unknown>;
}

/** `{name}` of an object in the HelmRelease's own namespace. */
export function LocalObjectName(opts: { description: string }) {
  return Type.Object({ name: Type.String({ pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$', maxLength: 253 }) }, opts);
}
