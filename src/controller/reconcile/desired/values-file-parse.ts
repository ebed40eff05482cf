/** A chart's values file is parsed as a valuesFrom document is: one parser, one set of messages. */
export { parseValuesDocument as parseValuesFile } from './values-from.js';

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
