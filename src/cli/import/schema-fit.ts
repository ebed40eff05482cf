/**
 * Fits a value to an OpenAPI (CRD) schema the way the API server would see it, and says what did
 * not fit: a field the schema does not declare is dropped (the API server would prune it without
 * a word), and a value the schema refuses (type, enum, pattern, bounds) is dropped too, each with
 * its path. Pure. CEL rules are not evaluated here: the API server does that on apply.
 */

export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  required?: string[];
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

export interface Misfit {
  /** Where, as `spec.install.replace` or `spec.valuesFrom[1].targetPath`. */
  path: string;
  /** 'unknown': the schema has no such field; 'invalid': the field exists and refuses the value. */
  kind: 'unknown' | 'invalid';
  /** For 'invalid': what the schema wants. */
  detail?: string;
  value: unknown;
}

export interface Fitted {
  /** undefined when the value itself does not fit (a required field is missing, the wrong type at the top). */
  value: unknown;
  misfits: Misfit[];
}

export function fitToSchema(value: unknown, schema: JsonSchema, path: string): Fitted {
  const misfits: Misfit[] = [];
  const fitted = fit(value, schema, path, misfits);
  return { value: fitted === DROP ? undefined : fitted, misfits };
}

const DROP = Symbol('drop');

function fit(value: unknown, schema: JsonSchema, path: string, misfits: Misfit[]): unknown {
  if (schema['x-kubernetes-preserve-unknown-fields'] && !schema.properties) return isPlainObject(value) || schema.type !== 'object' ? value : invalid();
  if (schema.type === 'object') return fitObject(value, schema, path, misfits);
  if (schema.type === 'array') return fitArray(value, schema, path, misfits);
  const problem = leafProblem(value, schema);
  return problem ? invalid(problem) : value;

  function invalid(detail = `must be ${schema.type ?? 'valid'}`): typeof DROP {
    misfits.push({ path, kind: 'invalid', detail, value });
    return DROP;
  }
}

function fitObject(value: unknown, schema: JsonSchema, path: string, misfits: Misfit[]): unknown {
  if (!isPlainObject(value)) {
    misfits.push({ path, kind: 'invalid', detail: 'must be an object', value });
    return DROP;
  }
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const childSchema = schema.properties?.[key];
    const childPath = `${path}.${key}`;
    if (!childSchema) {
      misfits.push({ path: childPath, kind: 'unknown', value: child });
      continue;
    }
    const fitted = fit(child, childSchema, childPath, misfits);
    if (fitted !== DROP) out[key] = fitted;
  }
  const missing = (schema.required ?? []).filter((key) => !(key in out));
  if (missing.length > 0) {
    misfits.push({ path, kind: 'invalid', detail: `needs ${missing.join(', ')}`, value });
    return DROP;
  }
  return out;
}

function fitArray(value: unknown, schema: JsonSchema, path: string, misfits: Misfit[]): unknown {
  if (!Array.isArray(value)) {
    misfits.push({ path, kind: 'invalid', detail: 'must be a list', value });
    return DROP;
  }
  const items = (value as unknown[])
    .map((item, index): unknown => (schema.items ? fit(item, schema.items, `${path}[${index}]`, misfits) : item))
    .filter((item) => item !== DROP);
  if (schema.maxItems !== undefined && items.length > schema.maxItems) {
    misfits.push({ path, kind: 'invalid', detail: `at most ${schema.maxItems} items`, value });
    return DROP;
  }
  if (schema.minItems !== undefined && items.length < schema.minItems) {
    misfits.push({ path, kind: 'invalid', detail: `at least ${schema.minItems} items`, value });
    return DROP;
  }
  return items;
}

function leafProblem(value: unknown, schema: JsonSchema): string | undefined {
  switch (schema.type) {
    case 'string':
      if (typeof value !== 'string') return 'must be a string';
      if (schema.minLength !== undefined && value.length < schema.minLength) return `at least ${schema.minLength} characters`;
      if (schema.maxLength !== undefined && value.length > schema.maxLength) return `at most ${schema.maxLength} characters`;
      if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value)) return `must match ${schema.pattern}`;
      break;
    case 'integer':
    case 'number':
      if (typeof value !== 'number' || (schema.type === 'integer' && !Number.isInteger(value)))
        return `must be ${schema.type === 'integer' ? 'an integer' : 'a number'}`;
      if (schema.minimum !== undefined && value < schema.minimum) return `at least ${schema.minimum}`;
      if (schema.maximum !== undefined && value > schema.maximum) return `at most ${schema.maximum}`;
      break;
    case 'boolean':
      if (typeof value !== 'boolean') return 'must be true or false';
      break;
    default:
      break;
  }
  if (schema.enum && !schema.enum.includes(value)) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Pure: does the schema declare this dotted path (`install.replace`, `valuesFrom[].targetPath`)? */
export function schemaKnows(schema: JsonSchema, dotted: string): boolean {
  let current: JsonSchema | undefined = schema;
  for (const raw of dotted.split('.')) {
    const key = raw.replace(/\[\]$/, '');
    current = current?.properties?.[key];
    if (!current) return false;
    if (raw.endsWith('[]')) current = current.items;
  }
  return current !== undefined;
}
