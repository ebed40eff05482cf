import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../src/dev/paths.js';

const CHART = join(REPO_ROOT, 'helm/helmcrew');
type Schema = { type?: string; properties?: Record<string, Schema>; additionalProperties?: boolean | Schema };

/** Every key path of a values tree ("redis.external.url"); maps whose keys are free (labels) stop at the map. */
function keyPaths(value: unknown, schema: Schema | undefined, prefix = ''): Array<{ path: string; schema: Schema | undefined }> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, child]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    const childSchema = schema?.properties?.[key];
    const free = childSchema?.type === 'object' && !childSchema.properties && typeof childSchema.additionalProperties === 'object';
    return [{ path, schema: childSchema }, ...(free ? [] : keyPaths(child, childSchema, path))];
  });
}

/** Every metric name the code registers (prom-client `name: 'helmcrew_…'`). */
function registeredMetrics(dir = join(REPO_ROOT, 'src')): Set<string> {
  const names = new Set<string>();
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) registeredMetrics(path).forEach((n) => names.add(n));
    else if (path.endsWith('.ts')) for (const m of readFileSync(path, 'utf8').matchAll(/name: '(helmcrew_[a-z_]+)'/g)) names.add(m[1]!);
  }
  return names;
}

describe('helm/helmcrew values.schema.json', () => {
  const schema = JSON.parse(readFileSync(join(CHART, 'values.schema.json'), 'utf8')) as Schema;
  const values = parse(readFileSync(join(CHART, 'values.yaml'), 'utf8')) as unknown;

  it('describes every key of values.yaml', () => {
    const paths = keyPaths(values, schema);
    expect(paths.length).toBeGreaterThan(60);
    expect(paths.filter((p) => p.schema === undefined).map((p) => p.path)).toEqual([]);
  });

  it('refuses keys it does not describe, at every level (a typo fails helm lint instead of being ignored)', () => {
    const open: string[] = [];
    const walk = (node: Schema, path: string) => {
      if (node.type === 'object' && node.properties && node.additionalProperties !== false) open.push(path || '(root)');
      for (const [key, child] of Object.entries(node.properties ?? {})) walk(child, path ? `${path}.${key}` : key);
    };
    walk(schema, '');
    expect(open).toEqual([]);
  });
});

describe('helm/helmcrew alerts and dashboard', () => {
  const known = registeredMetrics();
  const used = (text: string) => [...new Set([...text.matchAll(/\bhelmcrew_[a-z_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, '')))];

  it('use only metric names the code registers', () => {
    expect(known.size).toBeGreaterThan(10);
    const rules = used(readFileSync(join(CHART, 'templates/prometheusrule.yaml'), 'utf8'));
    const dashboard = used(readFileSync(join(CHART, 'dashboards/helmcrew.json'), 'utf8'));
    expect(rules.length).toBeGreaterThanOrEqual(4);
    expect(dashboard.length).toBeGreaterThanOrEqual(12);
    expect([...rules, ...dashboard].filter((name) => !known.has(name))).toEqual([]);
  });

  it('the dashboard charts every metric the code registers', () => {
    const dashboard = new Set(used(readFileSync(join(CHART, 'dashboards/helmcrew.json'), 'utf8')));
    const uncharted = [...known].filter((name) => !dashboard.has(name) && name !== 'helmcrew_notify_delivery_duration_seconds');
    expect(uncharted).toEqual([]);
  });
});
