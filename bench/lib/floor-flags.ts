// The floor's helm flags besides `upgrade --install <name> <chart.tgz> --namespace … --wait=watcher
// --timeout 300s --history-max 10`. "person" is helm as a person runs it; "strict" adds what
// helmcrew passes that changes helm's work (`--disable-openapi-validation`: issue 36's strict
// floor); "defaults" adds helmcrew's default action flags too, to tell the controller's cost from
// its defaults' cost. Output flags (`--output json`, `--description`, `--labels`) stay helmcrew's.

export const FLOOR_MODES = ['person', 'strict', 'defaults'] as const;
export type FloorMode = (typeof FLOOR_MODES)[number];

const STRICT = ['--disable-openapi-validation'];
/** helmcrew's defaults for install and upgrade (helm-flags.ts: server-side apply forcing conflicts, take ownership, wait for Jobs). */
const DEFAULTS = [...STRICT, '--server-side=true', '--force-conflicts', '--take-ownership', '--wait-for-jobs'];

export function floorMode(raw: string): FloorMode {
  if ((FLOOR_MODES as readonly string[]).includes(raw)) return raw as FloorMode;
  throw new Error(`--floor-flags must be one of ${FLOOR_MODES.join(', ')}, got "${raw}"`);
}

export function floorFlags(mode: FloorMode): string[] {
  return mode === 'person' ? [] : mode === 'strict' ? [...STRICT] : [...DEFAULTS];
}
