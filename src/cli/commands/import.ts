import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { HELMRELEASE_PLURAL, API_GROUP, API_VERSION } from '../../api/vocabulary.js';
import { loadKubeConfig } from '../../core/kube/client.js';
import { serverSideApply } from '../../core/kube/server-side-apply.js';
import { indexSources, isFluxHelmRelease, record, type FluxObject } from '../import/flux/flux-objects.js';
import { fluxReleaseTarget, mapFluxRelease } from '../import/flux/map-release.js';
import { moveReleaseRecords } from '../import/flux/move-records.js';
import { readFluxCluster, readFluxFiles } from '../import/flux/read-flux.js';
import { renderReport } from '../import/flux/report.js';

const USAGE = `usage: helmcrew import flux [-f FILE]... [-n NAMESPACE] [--apply] [--no-handover] [--move-records]
  Reads Flux HelmReleases and their sources (HelmRepository, OCIRepository, GitRepository,
  HelmChart) from FILEs (- is standard input) or, without -f, from the cluster (KUBECONFIG), and
  prints helmcrew HelmReleases as YAML; what cannot be carried is reported on standard error.
  --apply          apply them to the cluster instead of printing them
  --no-handover    do not name the live releases for helmcrew to take over (docs/flux-import.md)
  --move-records   move the records of releases Flux keeps in another namespace (spec.storageNamespace)
                   to the release's namespace, where helm keeps them, and hand them over too; the Flux
                   HelmRelease must be suspended`;

interface ImportArgs {
  files: string[];
  namespace?: string;
  apply: boolean;
  handover: boolean;
  moveRecords: boolean;
}

/** Asked for the usage (`--help`, `-h`, `help` anywhere): printed on standard output, exit 0. */
export const IMPORT_HELP = { help: USAGE } as const;

/** Pure: the command line, the usage when asked for, or a message saying what is wrong with it. */
export function parseImportArgs(args: readonly string[]): ImportArgs | typeof IMPORT_HELP | string {
  // Before anything else: `import flux --help` (or `import --help`) is a question, not a mistake.
  if (args.some((arg) => arg === '--help' || arg === '-h') || args[0] === 'help' || args.length === 0) return IMPORT_HELP;
  if (args[0] !== 'flux') return `helmcrew import: only "flux" can be imported from\n${USAGE}`;
  const parsed: ImportArgs = { files: [], apply: false, handover: true, moveRecords: false };
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]!;
    if ((arg === '-f' || arg === '--filename' || arg === '-n' || arg === '--namespace') && args[i + 1] === undefined)
      return `helmcrew import: ${arg} needs a value\n${USAGE}`;
    if (arg === '-f' || arg === '--filename') parsed.files.push(args[++i]!);
    else if (arg === '-n' || arg === '--namespace') parsed.namespace = args[++i]!;
    else if (arg === '--apply') parsed.apply = true;
    else if (arg === '--no-handover') parsed.handover = false;
    else if (arg === '--move-records') parsed.moveRecords = true;
    else return `helmcrew import: unknown argument "${arg}"\n${USAGE}`;
  }
  if (parsed.moveRecords && !parsed.handover) return `helmcrew import: --move-records hands the releases over; it cannot go with --no-handover\n${USAGE}`;
  return parsed;
}

export async function importCommand(args: string[]): Promise<number> {
  const parsed = parseImportArgs(args);
  if (typeof parsed === 'string') {
    console.error(parsed);
    return 2;
  }
  if ('help' in parsed) {
    console.log(parsed.help);
    return 0;
  }
  const kubeConfig = parsed.apply || parsed.moveRecords || parsed.files.length === 0 ? loadKubeConfig() : undefined;
  const defaultNamespace = parsed.namespace ?? kubeConfig?.getContextObject(kubeConfig.getCurrentContext())?.namespace ?? 'default';
  const objects = parsed.files.length > 0 ? await readFluxFiles(parsed.files) : await readFluxCluster(kubeConfig!, parsed.namespace);
  const sources = indexSources(objects, defaultNamespace);
  const { selected: fluxReleases, skipped } = releasesInNamespace(objects.filter(isFluxHelmRelease), parsed.namespace, defaultNamespace);
  const moves = parsed.moveRecords
    ? await moveRecords(kubeConfig!, fluxReleases, defaultNamespace)
    : { moved: new Map<string, number[]>(), refused: new Map<string, string>() };
  const results = fluxReleases.map((flux) => {
    const result = mapFluxRelease(flux, sources, { handover: parsed.handover, movedRecords: moves.moved }, defaultNamespace);
    const refused = moves.refused.get(result.source);
    // Asked to move and could not: not imported, or applying it would install revision 1 beside Flux's history.
    return refused ? { source: result.source, notes: [...result.notes, { path: 'spec.storageNamespace', reason: `records not moved: ${refused}` }] } : result;
  });
  process.stderr.write(renderReport(results, { namespace: parsed.namespace, skipped }));
  const releases = results.flatMap((r) => (r.release ? [r.release] : []));
  if (parsed.apply) {
    for (const release of releases) {
      const { namespace, name } = release.metadata;
      await serverSideApply(kubeConfig!, `/apis/${API_GROUP}/${API_VERSION}/namespaces/${namespace}/${HELMRELEASE_PLURAL}/${name}`, release);
      console.error(`applied HelmRelease ${namespace}/${name}`);
    }
  } else {
    process.stdout.write(releases.map((release) => stringify(release, { lineWidth: 0 })).join('---\n'));
  }
  return results.length === releases.length ? 0 : 1;
}

/** Pure: the Flux HelmReleases of `-n` (all without it), and the ones left out, named `namespace/name`. */
export function releasesInNamespace(
  fluxReleases: FluxObject[],
  namespace: string | undefined,
  defaultNamespace: string,
): { selected: FluxObject[]; skipped: string[] } {
  const where = (flux: FluxObject) => flux.metadata.namespace ?? defaultNamespace;
  if (!namespace) return { selected: fluxReleases, skipped: [] };
  return {
    selected: fluxReleases.filter((flux) => where(flux) === namespace),
    skipped: fluxReleases.filter((flux) => where(flux) !== namespace).map((flux) => `${where(flux)}/${flux.metadata.name}`),
  };
}

/** --move-records: each release Flux keeps elsewhere, moved if its Flux HelmRelease is suspended (else Flux would install it again). */
async function moveRecords(
  kubeConfig: KubeConfig,
  fluxReleases: FluxObject[],
  defaultNamespace: string,
): Promise<{ moved: Map<string, number[]>; refused: Map<string, string> }> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const moved = new Map<string, number[]>();
  const refused = new Map<string, string>();
  for (const flux of fluxReleases) {
    const target = fluxReleaseTarget(flux, defaultNamespace);
    if (target.storageNamespace === target.namespace) continue;
    const source = `HelmRelease ${flux.metadata.namespace ?? defaultNamespace}/${flux.metadata.name}`;
    if (record(flux.spec).suspend !== true) {
      refused.set(source, 'the Flux HelmRelease is not suspended (spec.suspend: true, or flux suspend hr): Flux would install it again where its records were');
      continue;
    }
    const outcome = await moveReleaseRecords(core, target);
    if (outcome.ok) {
      moved.set(source, outcome.revisions);
      console.error(
        `moved the records of Helm release ${target.releaseName} (revisions ${outcome.revisions.join(', ')}) from ${target.storageNamespace} to ${target.namespace}`,
      );
    } else refused.set(source, outcome.why);
  }
  return { moved, refused };
}
