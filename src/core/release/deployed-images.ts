/** At most this many images travel with an event (the rest as a count); a message shows fewer (`imagesLine`). */
export const MAX_EVENT_IMAGES = 20;

/** Where a kind keeps its pod spec: the workloads whose containers run the release's images. */
const POD_SPEC_PATHS: Record<string, readonly string[]> = {
  Pod: ['spec'],
  Deployment: ['spec', 'template', 'spec'],
  StatefulSet: ['spec', 'template', 'spec'],
  DaemonSet: ['spec', 'template', 'spec'],
  ReplicaSet: ['spec', 'template', 'spec'],
  Job: ['spec', 'template', 'spec'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
};

/**
 * Pure: the distinct container images (init containers too) of a release's workloads, in manifest
 * order, from its documents as read (the controller reads the manifest once, as helm does, for the
 * inventory and for this: an outline of the fields read here, manifest-outline.ts). A document that is not a workload is skipped (one
 * that was not valid YAML is not among them): the list informs a message, it decides nothing.
 */
export function deployedImages(documents: Iterable<unknown> | undefined): string[] {
  const images: string[] = [];
  for (const object of documents ?? []) {
    for (const image of imagesOf(object)) {
      if (!images.includes(image)) images.push(image);
    }
  }
  return images;
}

function imagesOf(object: unknown): string[] {
  if (!isRecord(object) || typeof object.kind !== 'string') return [];
  const path = POD_SPEC_PATHS[object.kind];
  if (!path) return [];
  let spec: unknown = object;
  for (const step of path) spec = isRecord(spec) ? spec[step] : undefined;
  if (!isRecord(spec)) return [];
  return [...containers(spec.initContainers), ...containers(spec.containers)];
}

function containers(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((c) => (isRecord(c) && typeof c.image === 'string' && c.image ? [c.image] : []));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Pure: what an event carries: the first MAX_EVENT_IMAGES images and how many more there are. */
export function eventImages(documents: Iterable<unknown> | undefined): { images: string[]; moreImages?: number } | undefined {
  const all = deployedImages(documents);
  if (!all.length) return undefined;
  const more = all.length - MAX_EVENT_IMAGES;
  return more > 0 ? { images: all.slice(0, MAX_EVENT_IMAGES), moreImages: more } : { images: all };
}

/** Pure: "nginx:1.25, redis:7 +3 more" — the first `shown` images and how many more there are (`more`: beyond the list). */
export function imagesLine(images: readonly string[], more = 0, shown = 5): string {
  const head = images.slice(0, shown).join(', ');
  const rest = Math.max(0, images.length - shown) + more;
  return rest > 0 ? `${head} +${rest} more` : head;
}
