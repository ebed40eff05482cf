/**
 * Pure: is a Kubernetes object ready, by the kstatus rules (fluxcd/cli-utils kstatus/status) for
 * the kinds a dependency names most: a CRD Established, a Deployment Available with every replica
 * updated, a StatefulSet, DaemonSet, Job, Pod or claim done; any other kind by its Ready / Stalled /
 * Reconciling conditions, and Current when it has none (kstatus does the same).
 */

export type Readiness = { status: 'current' | 'in-progress' | 'failed'; message: string };

type Json = Record<string, unknown>;
interface Condition {
  type?: unknown;
  status?: unknown;
  reason?: unknown;
  message?: unknown;
}

export function objectReadiness(object: { apiVersion: string; kind: string; metadata: Json; [key: string]: unknown }): Readiness {
  const status = asObject(object.status);
  const spec = asObject(object.spec);
  const generation = num(object.metadata.generation);
  const observed = num(status.observedGeneration);
  if (generation !== undefined && observed !== undefined && observed < generation) {
    return inProgress(`observedGeneration ${observed} is behind generation ${generation}`);
  }
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Condition[]) : [];
  const condition = (type: string) => conditions.find((c) => c.type === type);
  const group = object.apiVersion.includes('/') ? object.apiVersion.split('/')[0] : '';
  switch (`${group}/${object.kind}`) {
    case 'apiextensions.k8s.io/CustomResourceDefinition': {
      const established = condition('Established');
      if (established?.status === 'True') return current('Established');
      if (condition('NamesAccepted')?.status === 'False') return failed(`names not accepted: ${text(condition('NamesAccepted')?.message)}`);
      return inProgress('not Established yet');
    }
    case 'apps/Deployment': {
      const progressing = condition('Progressing');
      if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded')
        return failed(`progress deadline exceeded: ${text(progressing.message)}`);
      const want = num(spec.replicas) ?? 1;
      const counts = replicaCounts(status, want, ['updatedReplicas', 'readyReplicas', 'availableReplicas']);
      if (counts) return inProgress(counts);
      if ((num(status.replicas) ?? 0) > (num(status.updatedReplicas) ?? 0)) return inProgress('old replicas are still terminating');
      return condition('Available')?.status === 'True' ? current('Available') : inProgress('not Available');
    }
    case 'apps/StatefulSet': {
      const counts = replicaCounts(status, num(spec.replicas) ?? 1, ['readyReplicas', 'currentReplicas']);
      return counts ? inProgress(counts) : current('all replicas ready');
    }
    case 'apps/DaemonSet': {
      const want = num(status.desiredNumberScheduled);
      if (want === undefined) return inProgress('not scheduled yet');
      const available = num(status.numberAvailable) ?? 0;
      return available < want ? inProgress(`${available} of ${want} pods available`) : current('all pods available');
    }
    case 'batch/Job': {
      if (condition('Failed')?.status === 'True') return failed(`Job failed: ${text(condition('Failed')?.message)}`);
      return condition('Complete')?.status === 'True' ? current('Complete') : inProgress('not Complete');
    }
    case '/Pod': {
      if (status.phase === 'Succeeded') return current('Succeeded');
      if (status.phase === 'Failed') return failed('Pod failed');
      return condition('Ready')?.status === 'True' ? current('Ready') : inProgress('not Ready');
    }
    case '/PersistentVolumeClaim':
      return status.phase === 'Bound' ? current('Bound') : inProgress(`phase ${text(status.phase) || 'unknown'}`);
    default:
      return byConditions(condition);
  }
}

function byConditions(condition: (type: string) => Condition | undefined): Readiness {
  const stalled = condition('Stalled');
  if (stalled?.status === 'True') return failed(`Stalled: ${text(stalled.message)}`);
  if (condition('Reconciling')?.status === 'True') return inProgress(`Reconciling: ${text(condition('Reconciling')?.message)}`);
  const ready = condition('Ready');
  if (ready?.status === 'True') return current('Ready');
  if (ready) return inProgress(`Ready=${text(ready.status)}${ready.message ? `: ${text(ready.message)}` : ''}`);
  return current('no Ready condition (exists)');
}

function replicaCounts(status: Json, want: number, fields: string[]): string | undefined {
  for (const field of fields) {
    const have = num(status[field]) ?? 0;
    if (have < want) return `${field} ${have} of ${want}`;
  }
  return undefined;
}

const current = (message: string): Readiness => ({ status: 'current', message });
const inProgress = (message: string): Readiness => ({ status: 'in-progress', message });
const failed = (message: string): Readiness => ({ status: 'failed', message });

function asObject(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.slice(0, 200) : '';
}
