import { stringify } from 'yaml';
import { HELMRELEASE_PLURAL, API_GROUP, API_VERSION } from '../../api/vocabulary.js';
import { loadKubeConfig } from '../../core/kube/client.js';
import { serverSideApply } from '../../core/kube/server-side-apply.js';
import { indexSources, isFluxHelmRelease } from '../import/flux/flux-objects.js';
import { mapFluxRelease } from '../import/flux/map-release.js';
import { readFluxCluster, readFluxFiles } from '../import/flux/read-flux.js';
import { renderReport } from '../import/flux/report.js';

const USAGE = `usage: helmcrew import flux [-f FILE]... [-n NAMESPACE] [--apply] [--no-handover]
  Reads Flux HelmReleases and their sources (HelmRepository, OCIRepository, GitRepository,
  HelmChart) from FILEs (- is standard input) or, without -f, from the cluster (KUBECONFIG), and
  prints helmcrew HelmReleases as YAML; what cannot be carried is reported on standard error.
  --apply          apply them to the cluster instead of printing them
  --no-handover    do not name the live releases for helmcrew to take over (docs/flux-import.md)`;

interface ImportArgs {
  files: string[];
  namespace?: string;
  apply: boolean;
  handover: boolean;
}

/** Pure: the command line, or a message saying what is wrong with it. */
export function parseImportArgs(args: readonly string[]): ImportArgs | string {
  if (args[0] !== 'flux') return `helmcrew import: only "flux" can be imported from\n${USAGE}`;
  const parsed: ImportArgs = { files: [], apply: false, handover: true };
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]!;
    if ((arg === '-f' || arg === '--filename' || arg === '-n' || arg === '--namespace') && args[i + 1] === undefined)
      return `helmcrew import: ${arg} needs a value\n${USAGE}`;
    if (arg === '-f' || arg === '--filename') parsed.files.push(args[++i]!);
    else if (arg === '-n' || arg === '--namespace') parsed.namespace = args[++i]!;
    else if (arg === '--apply') parsed.apply = true;
    else if (arg === '--no-handover') parsed.handover = false;
    else return `helmcrew import: unknown argument "${arg}"\n${USAGE}`;
  }
  return parsed;
}

export async function importCommand(args: string[]): Promise<number> {
  const parsed = parseImportArgs(args);
  if (typeof parsed === 'string') {
    console.error(parsed);
    return 2;
  }
  const kubeConfig = parsed.apply || parsed.files.length === 0 ? loadKubeConfig() : undefined;
  const defaultNamespace = parsed.namespace ?? kubeConfig?.getContextObject(kubeConfig.getCurrentContext())?.namespace ?? 'default';
  const objects = parsed.files.length > 0 ? await readFluxFiles(parsed.files) : await readFluxCluster(kubeConfig!, parsed.namespace);
  const sources = indexSources(objects, defaultNamespace);
  const results = objects
    .filter(isFluxHelmRelease)
    .filter((flux) => !parsed.namespace || (flux.metadata.namespace ?? defaultNamespace) === parsed.namespace)
    .map((flux) => mapFluxRelease(flux, sources, { handover: parsed.handover }, defaultNamespace));
  process.stderr.write(renderReport(results));
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
