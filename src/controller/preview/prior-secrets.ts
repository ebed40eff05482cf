import { MIN_SECRET_LENGTH } from '../../core/release/secret-values.js';
import { isPlainObject } from '../../core/release/values.js';

/**
 * Pure: the deployed revision's values where the desired values now hold a Secret's value. A
 * rotated password is a secret before as well as after, and only today's Secret can be read: its
 * earlier value is found at the same values path of the deployed revision, so the diff hides both.
 */
export function priorSecrets(deployedValues: unknown, desiredValues: unknown, isSecret: (text: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (was: unknown, now: unknown): void => {
    if (isPlainObject(now)) {
      if (isPlainObject(was)) for (const key of Object.keys(now)) walk(was[key], now[key]);
      return;
    }
    if (Array.isArray(now)) {
      if (Array.isArray(was)) now.forEach((item, i) => walk(was[i], item));
      return;
    }
    const nowText = typeof now === 'string' || typeof now === 'number' ? String(now) : undefined;
    const wasText = typeof was === 'string' || typeof was === 'number' ? String(was) : undefined;
    if (nowText !== undefined && wasText !== undefined && wasText.length >= MIN_SECRET_LENGTH && isSecret(nowText)) out.push(wasText);
  };
  walk(deployedValues, desiredValues);
  return out;
}
