import type { ClusterObjects, KubeObject } from '../../core/kube/cluster-objects.js';
import { apiErrorMessage, apiStatusCode } from '../../core/kube/errors.js';
import { HelmError, type HelmStep } from '../helm/helm-error.js';
import { parseHelmYaml } from '../helm/helm-yaml.js';
import type { CrdStep } from './crd-policy.js';

const CRD_API_VERSION = 'apiextensions.k8s.io/v1';
const CRD_KIND = 'CustomResourceDefinition';

/**
 * A chart CRD the policy could not create or update. A HelmError of the attempt's step, so it is
 * counted and reported as that install or upgrade failing, with the object named.
 */
export class CrdPolicyError extends HelmError {
  constructor(step: HelmStep, message: string) {
    super({ step, exitCode: undefined, stderr: `Error: ${message}`, timedOut: false });
    this.name = 'CrdPolicyError';
  }
}

/** Pure: the CRDs among `helm show crds` output (other kinds in crds/ are left to helm, as helm does). */
export function chartCrds(yamlText: string): KubeObject[] {
  const crds: KubeObject[] = [];
  for (const text of yamlText.split(/^---[^\n]*$/m)) {
    if (!text.trim()) continue;
    const value = parseHelmYaml(text) as Partial<KubeObject> | null;
    if (value?.kind !== CRD_KIND || typeof value.metadata?.name !== 'string') continue;
    crds.push(value as KubeObject);
  }
  return crds;
}

/**
 * Creates or updates a chart's CRDs before helm runs (install/upgrade.crds), with server-side
 * apply as the HelmRelease's identity and helm's field manager. `create-replace` forces: Flux's
 * CreateReplace replaces the CRD whoever wrote it. Nothing is ever deleted.
 */
export class CrdApplier {
  constructor(
    private readonly objects: ClusterObjects,
    /** helm's field manager, so helm's own later writes and ours are one manager. */
    private readonly fieldManager: string,
  ) {}

  async apply(crds: KubeObject[], step: CrdStep['apply'], opts: { user?: string; helmStep: HelmStep; policy: string }): Promise<string[]> {
    if (step === 'none' || crds.length === 0) return [];
    const client = this.objects.forUser(opts.user);
    const info = await client.resolve(CRD_API_VERSION, CRD_KIND);
    if (!info) throw new CrdPolicyError(opts.helmStep, `${opts.policy}: the API server does not serve ${CRD_API_VERSION} ${CRD_KIND}`);
    const applied: string[] = [];
    for (const crd of crds) {
      const name = crd.metadata.name;
      const as = opts.user ? ` as ${opts.user}` : '';
      try {
        if (step === 'create-missing' && (await client.get(info, undefined, name))) continue;
        await client.apply(info, { ...crd, apiVersion: CRD_API_VERSION }, { fieldManager: this.fieldManager, force: step === 'create-replace', dryRun: false });
        applied.push(name);
      } catch (error) {
        if (apiStatusCode(error) === undefined) throw error;
        const verb = step === 'create-replace' ? 'create or replace' : 'create';
        throw new CrdPolicyError(opts.helmStep, `${opts.policy}: could not ${verb} ${CRD_KIND} ${name}${as}: ${apiErrorMessage(error)}`);
      }
    }
    return applied;
  }
}
