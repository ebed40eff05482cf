/**
 * One copy of each string in what the watches keep. JSON.parse makes a fresh copy of every string
 * value, so 10,000 cached HelmReleases hold 10,000 copies of their namespace, apiVersion, kind,
 * finalizer, chart repository and condition messages. V8 keeps a single copy of every property
 * name in its string table and forgets the ones nothing uses any more, so a string used as a key
 * comes back as that one copy: no pool of our own to bound, nothing kept after the last user.
 */

/** Strings longer than this are left alone (a manifest or a long message is rarely repeated). */
const MAX_SHARED_LENGTH = 256;

/** The string table's copy of `s` (itself when `s` is long, or numeric: V8 keeps array indices apart). */
export function sharedString(s: string): string {
  if (s.length > MAX_SHARED_LENGTH) return s;
  const holder: Record<string, 0> = { [s]: 0 };
  for (const key in holder) return key;
  return s;
}

/**
 * Replaces, in place, every short string inside plain objects and arrays with its shared copy and
 * returns `value`. The values read the same; only the copies go. Frozen objects are left as they are.
 */
export function shareStrings<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = shareValue(value[i]);
    return value;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) record[key] = shareValue(record[key]);
  return value;
}

function shareValue(v: unknown): unknown {
  return typeof v === 'string' ? sharedString(v) : shareStrings(v);
}
