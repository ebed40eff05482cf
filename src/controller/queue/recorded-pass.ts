import type { ReconcileResult } from '../reconcile/ports/pass.js';
import type { CheckLedger } from './check-ledger.js';

/**
 * A worker's job: one pass, then the check recorded in the ledger (the resync reads it to skip
 * releases checked lately), or the release forgotten when it is gone. Bookkeeping only, not waited
 * for: the ledger sends its records in batches, and if Redis hiccups the release is merely due again
 * sooner, so the pass's result stands.
 */
export function recordedPass(
  pass: (namespace: string, name: string) => Promise<ReconcileResult>,
  ledger: Pick<CheckLedger, 'checked' | 'forget'>,
  nowMs: () => number = Date.now,
): (namespace: string, name: string) => Promise<ReconcileResult> {
  return async (namespace, name) => {
    const result = await pass(namespace, name);
    if (result.action === 'gone') ledger.forget(result.key);
    else ledger.checked(result.key, nowMs());
    return result;
  };
}
