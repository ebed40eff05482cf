import type { HelmRelease } from '../../api/helmrelease.js';

/**
 * Pure: does a GitOps tool own this object? Then a change made from chat is reverted at its
 * next sync, and the person should change Git instead (or suspend the tool too).
 */

interface ManagedField {
  manager?: string;
}

const LABEL_OR_ANNOTATION_PREFIXES: Array<[string, string]> = [
  ['kustomize.toolkit.fluxcd.io/', 'Flux (kustomize-controller)'],
  ['helm.toolkit.fluxcd.io/', 'Flux (helm-controller)'],
  ['argocd.argoproj.io/', 'Argo CD'],
];
const MANAGERS: Array<[RegExp, string]> = [
  [/^kustomize-controller$/, 'Flux (kustomize-controller)'],
  [/^helm-controller$/, 'Flux (helm-controller)'],
  [/^argocd(-controller|-application-controller)?$/, 'Argo CD'],
];

export function gitOpsOwner(release: HelmRelease & { metadata: { managedFields?: ManagedField[] } }): string | undefined {
  const keys = [...Object.keys(release.metadata.labels ?? {}), ...Object.keys(release.metadata.annotations ?? {})];
  for (const [prefix, tool] of LABEL_OR_ANNOTATION_PREFIXES) {
    if (keys.some((key) => key.startsWith(prefix))) return tool;
  }
  // A field manager that wrote the object is the other sign (server-side apply by the tool).
  for (const field of release.metadata.managedFields ?? []) {
    for (const [pattern, tool] of MANAGERS) if (field.manager && pattern.test(field.manager)) return tool;
  }
  return undefined;
}

export function gitOpsWarning(release: HelmRelease): string | undefined {
  const tool = gitOpsOwner(release);
  return tool
    ? `${tool} manages this HelmRelease: its next sync will put back what Git says; change Git too, or suspend ${tool.split(' ')[0]} for it`
    : undefined;
}
