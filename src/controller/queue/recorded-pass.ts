import type { Logger } from '../../core/log.js';
import type { ReconcileResult } from '../reconcile/ports/pass.js';
import type { CheckLedger } from './check-ledger.js';

/**
 * A worker's job: one pass, then the check recorded in the ledger (the resync reads it to skip
 * releases checked lately), or the release forgotten when it is gone. Bookkeeping only: if Redis
 * hiccups here, the release is merely due again sooner, so the pass's result stands.
 */
export function recordedPass(
  pass: (namespace: string, name: string) => Promise<ReconcileResult>,
  ledger: Pick<CheckLedger, 'checked' | 'forget'>,
  log: Logger,
  nowMs: () => number = Date.now,
): (namespace: string, name: string) => Promise<ReconcileResult> {
  return async (namespace, name) => {
    const result = await pass(namespace, name);
    await (result.action === 'gone' ? ledger.forget(result.key) : ledger.checked(result.key, nowMs())).catch((error: Error) =>
      log.warn({ release: result.key, error: error.message }, 'could not record the check'),
    );
    return result;
  };
}
