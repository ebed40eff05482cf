/**
 * A path into Helm values — `a.b[0].c`, `\.` for a dot inside a key — as valuesFrom[].targetPath,
 * spec.imageUpdates[].valuesPath and approved overrides write it, and the value found there. Pure;
 * shared by the controller (which sets values there) and the bot (which reads what a release runs).
 */

export type PathSegment = { key: string } | { index: number };

export class TargetPathError extends Error {
  override name = 'TargetPathError';
}

/** `a.b[0].c`, `\.` for a dot inside a key (`annotations.example\.com/owner`). */
export function parseTargetPath(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  let key = '';
  let keyStarted = false;
  const endKey = () => {
    if (keyStarted || key) segments.push({ key });
    if (!key && keyStarted) throw new TargetPathError(`targetPath ${JSON.stringify(path)} has an empty key`);
    key = '';
    keyStarted = false;
  };
  for (let i = 0; i < path.length; i++) {
    const c = path[i]!;
    if (c === '\\' && i + 1 < path.length) {
      key += path[++i];
      keyStarted = true;
    } else if (c === '.') {
      if (!key && segments.length > 0 && 'index' in segments[segments.length - 1]!) continue;
      if (!key) throw new TargetPathError(`targetPath ${JSON.stringify(path)} has an empty key`);
      endKey();
    } else if (c === '[') {
      const close = path.indexOf(']', i);
      const digits = close > i ? path.slice(i + 1, close) : '';
      if (!/^[0-9]{1,5}$/.test(digits)) throw new TargetPathError(`targetPath ${JSON.stringify(path)} has an index that is not a number`);
      if (key) endKey();
      if (segments.length === 0) throw new TargetPathError(`targetPath ${JSON.stringify(path)} starts with an index`);
      segments.push({ index: Number(digits) });
      i = close;
    } else {
      key += c;
      keyStarted = true;
    }
  }
  if (key) endKey();
  if (segments.length === 0) throw new TargetPathError('targetPath is empty');
  return segments;
}

/** The value at `segments` (undefined when any step is missing). */
export function valueAt(values: unknown, segments: readonly PathSegment[]): unknown {
  let node = values;
  for (const segment of segments) {
    if ('index' in segment) node = Array.isArray(node) ? node[segment.index] : undefined;
    else
      node =
        node !== null && typeof node === 'object' && !Array.isArray(node) && Object.hasOwn(node, segment.key)
          ? (node as Record<string, unknown>)[segment.key]
          : undefined;
    if (node === undefined) return undefined;
  }
  return node;
}
