import { randomBytes } from 'node:crypto';

/** Six hex digits, for names that must not collide between runs. */
export function randomSuffix(): string {
  return randomBytes(3).toString('hex');
}

/** `prefix-1a2b3c`: a name of its own for a namespace, a queue prefix, a Team. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomSuffix()}`;
}
