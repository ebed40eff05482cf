/**
 * Pure: strings in code-unit order (`<`), as kubectl and Go sort names — for Kubernetes names, Team
 * and cluster names, ISO timestamps. Not `localeCompare`: its first call loads ICU's collation data
 * (~2.3 MiB of the node binary made resident), which the web part's RSS target cannot spare, and
 * names and timestamps have no locale.
 */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
