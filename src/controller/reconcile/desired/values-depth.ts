/**
 * How deeply values may nest. Real charts stay below ~15 levels; thousands of levels overflow
 * the stack of every recursive walk (merge, canonical JSON, YAML writing, helm's own parser),
 * so such values are refused with a clear message before anything recurses over them.
 */
export const MAX_VALUES_DEPTH = 100;

/**
 * Pure and iterative (it must not overflow on the input it guards against): the nesting depth
 * of maps and lists, counting the top-level map as 1. Stops early once past `limit`.
 */
export function valuesDepth(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const child of Object.values(node as Record<string, unknown>)) {
      if (typeof child === 'object' && child !== null) stack.push({ node: child, depth: depth + 1 });
    }
  }
  return deepest;
}

/** Pure: a message when values nest deeper than allowed, else undefined. */
export function valuesTooDeep(values: unknown, where: string, limit = MAX_VALUES_DEPTH): string | undefined {
  const depth = valuesDepth(values, limit);
  return depth > limit ? `${where} nest more than ${limit} levels deep; flatten them` : undefined;
}
