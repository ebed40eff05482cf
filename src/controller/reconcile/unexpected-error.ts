import { ReleaseEvent } from '../../api/vocabulary.js';
import { ReleaseRecordError } from '../../core/helm-storage/release-record.js';
import { apiErrorMessage } from '../../core/kube/errors.js';
import { retryingStatus } from '../status/release-status.js';
import { RetryLaterError, type ControllerContext } from './ports/context.js';
import { reconcileRelease } from './reconciler.js';
import { passSpan } from './ports/pass-spans.js';
import { StatusWriter } from './ports/status-writer.js';
import type { ReconcileResult } from './ports/pass.js';

const MAX_MESSAGE = 1000;

/** Pure: the condition reason for an error no action handled, decided by its class. */
export function unexpectedErrorReason(error: unknown): ReleaseEvent {
  if (error instanceof ReleaseRecordError) return ReleaseEvent.ReleaseRecordInvalid;
  return ReleaseEvent.ReconcileError;
}

/** Pure: what status says about it, short and without a stack trace. */
export function unexpectedErrorMessage(error: unknown): string {
  const text = apiErrorMessage(error);
  const message = error instanceof ReleaseRecordError ? text : `Reconcile failed: ${text}`;
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message;
}

/**
 * A reconcile pass whose unexpected failures reach the HelmRelease: Ready=False with a reason
 * and the message, an Event, then the error is rethrown so the queue retries with backoff.
 * RetryLaterError already reported itself. Without this a throw left "Installing" forever.
 * The whole is one trace when tracing is on.
 */
export function reconcileReportingErrors(ctx: ControllerContext, namespace: string, name: string): Promise<ReconcileResult> {
  return passSpan(namespace, name, () => reportingErrors(ctx, namespace, name));
}

async function reportingErrors(ctx: ControllerContext, namespace: string, name: string): Promise<ReconcileResult> {
  try {
    return await reconcileRelease(ctx, namespace, name);
  } catch (error) {
    if (!(error instanceof RetryLaterError)) await reportUnexpectedError(ctx, namespace, name, error);
    throw error;
  }
}

async function reportUnexpectedError(ctx: ControllerContext, namespace: string, name: string, error: unknown): Promise<void> {
  const key = `${namespace}/${name}`;
  const reason = unexpectedErrorReason(error);
  const message = unexpectedErrorMessage(error);
  ctx.log.warn({ release: key, action: 'report-error', reason, error: message }, 'reconcile failed unexpectedly');
  try {
    const release = await ctx.api.get(namespace, name);
    if (!release) return;
    await new StatusWriter(() => ctx.api, release).write(release, retryingStatus(release, reason, message, ctx.now()));
    await ctx.events.record(release, reason, message);
  } catch (reportError) {
    // The API server may be the thing that failed; the queue's retry is the fallback.
    ctx.log.warn({ release: key, error: apiErrorMessage(reportError) }, 'could not report the failure in status');
  }
}
