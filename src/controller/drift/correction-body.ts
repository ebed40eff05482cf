import type { KubeObject } from '../../core/kube/cluster-objects.js';
import { getAt, parsePointer, removeAt, setAt } from './json-pointer.js';

/**
 * Pure: what a correction applies for one object: the manifest's object, except that each ignored
 * field the manifest sets carries the live value. Leaving such a field out instead would give up
 * helm's ownership of it, and a field nobody else owns would then be reset to its default: an
 * ignored `/spec/replicas` that an autoscaler set must stay as the autoscaler left it.
 */
export function correctionBody(manifestObject: KubeObject, live: KubeObject | undefined, ignore: readonly string[]): KubeObject {
  const body = structuredClone(manifestObject);
  // A deleted object is recreated as the manifest declares it.
  if (live === undefined) return body;
  for (const pointer of ignore) {
    const tokens = parsePointer(pointer);
    if (tokens.length === 0 || getAt(body, tokens) === undefined) continue;
    const current = getAt(live, tokens);
    if (current === undefined) removeAt(body, tokens);
    else setAt(body, tokens, structuredClone(current));
  }
  return body;
}
