import { createHmac } from 'node:crypto';
import { canonicalJson } from './values.js';

/**
 * The values digest shown in status (history[].valuesDigest, lastAttemptedValuesDigest): an
 * HMAC-SHA256 keyed by a controller key, not a plain hash. Values include Secret values, and a
 * plain sha256 of `{"password":"hunter2"}` is found with a wordlist in seconds; without the key
 * (kept in a Secret only the controller reads) a digest tells nothing about the values except
 * whether two are equal. All replicas share the key, so digests compare across replicas and
 * restarts (see digest-key.ts).
 */
export class ValuesDigester {
  constructor(private readonly key: Buffer) {
    if (key.length < 16) throw new Error('the values digest key must be at least 16 bytes');
  }

  digest(values: Record<string, unknown>): string {
    return `hmac-sha256:${createHmac('sha256', this.key).update(canonicalJson(values)).digest('hex')}`;
  }
}
