import { isPlainObject } from '../../core/release/values.js';
import { HelmYamlError, parseHelmYaml } from './helm-yaml.js';
import { ValuesError } from './values-from.js';

/**
 * Pure: why a spec.chart.valuesFiles entry is refused, or undefined. The CRD's pattern says the
 * same; this also guards objects written before it (and keeps every read inside the chart).
 */
export function valuesFilePathProblem(path: string): string | undefined {
  if (path.length === 0) return 'is empty';
  if (path.startsWith('/')) return 'must be relative to the chart folder';
  if (path.includes('\\')) return 'must use / between folders';
  if (path.split('/').some((part) => part === '..' || part === '.' || part === '')) return 'must name a file below the chart folder (no ., .. or empty parts)';
  return undefined;
}

/** Parses a chart's values file as helm does (YAML 1.1); empty is no values, anything but a map is refused. */
export function parseValuesFile(text: string, where: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = parseHelmYaml(text);
  } catch (error) {
    if (error instanceof HelmYamlError) throw new ValuesError(`${where}: ${error.message}`);
    const line = (error as { linePos?: Array<{ line: number }> }).linePos?.[0]?.line;
    throw new ValuesError(`${where} is not valid YAML${line ? ` (line ${line})` : ''}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isPlainObject(parsed)) throw new ValuesError(`${where} must hold a YAML map of values`);
  return parsed;
}
