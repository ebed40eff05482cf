/** What `answeredWithin` gives for a promise not settled in time. */
export const LATE = Symbol('late');

/**
 * The promise's value if it settles within `ms`, else LATE (its rejection, if first, rejects this).
 * The promise itself goes on: a caller that got LATE may still follow it. For Redis commands on
 * BullMQ's connections, which queue through an outage (maxRetriesPerRequest: null) rather than fail.
 */
export async function answeredWithin<T>(promise: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof LATE>((resolve) => (timer = setTimeout(() => resolve(LATE), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
