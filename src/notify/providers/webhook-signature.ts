import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * How a webhook delivery is signed, so a receiver can check it came from helmcrew and is fresh:
 *
 *   X-Helmcrew-Timestamp: <unix seconds>
 *   X-Helmcrew-Signature: sha256=<hex of HMAC-SHA256(key, "<timestamp>.<raw body>")>
 *
 * The receiver recomputes the HMAC over the timestamp header, a ".", and the raw request body
 * bytes, compares in constant time, and refuses a timestamp more than 5 minutes from its clock.
 */
export const SIGNATURE_HEADER = 'x-helmcrew-signature';
export const TIMESTAMP_HEADER = 'x-helmcrew-timestamp';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export function signWebhookBody(key: string | Buffer, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', key).update(`${timestamp}.${body}`).digest('hex')}`;
}

export type SignatureCheck = 'valid' | 'missing' | 'bad-signature' | 'stale-timestamp';

/** What a receiver does with a request. Pure but for the HMAC. */
export function verifyWebhookSignature(opts: {
  key: string | Buffer;
  body: string;
  timestamp: string | undefined;
  signature: string | undefined;
  nowSeconds: number;
  toleranceSeconds?: number;
}): SignatureCheck {
  const { timestamp, signature } = opts;
  if (!timestamp || !signature || !/^\d+$/.test(timestamp)) return 'missing';
  const expected = Buffer.from(signWebhookBody(opts.key, Number(timestamp), opts.body));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad-signature';
  if (Math.abs(opts.nowSeconds - Number(timestamp)) > (opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return 'stale-timestamp';
  return 'valid';
}
