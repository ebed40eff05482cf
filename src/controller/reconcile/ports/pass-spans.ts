import { inSpan, tracingActive, type SpanAttributes } from '../../../core/tracing/tracing.js';
import type { ReconcileResult } from './pass.js';

/**
 * The reconcile pass as a trace (docs/operations.md#traces): one root span per pass, a child per
 * stage, helm's processes below the stage that ran them (helm-runner.ts). With tracing off these
 * only call through.
 */

/** One trace per pass; its action is set when the pass ends. */
export function passSpan(namespace: string, name: string, pass: () => Promise<ReconcileResult>): Promise<ReconcileResult> {
  return inSpan(
    'reconcile',
    { 'helmcrew.release': `${namespace}/${name}`, 'k8s.namespace.name': namespace },
    async (span) => {
      const result = await pass();
      span.set({ 'helmcrew.action': result.action });
      return result;
    },
    { root: true, kind: 'consumer' },
  );
}

/** A stage of the pass (gate, lifecycle, desired, recovery, decide, act); `describe` adds what it found. */
export function stageSpan<T>(stage: string, run: () => Promise<T>, describe?: (result: T) => SpanAttributes): Promise<T> {
  if (!tracingActive()) return run(); // the steady state pays nothing for a span it does not record
  return inSpan(`reconcile.${stage}`, { 'helmcrew.stage': stage }, async (span) => {
    const result = await run();
    if (describe) span.set(describe(result));
    return result;
  });
}

/** For a stage that may end the pass. */
export const endsPass = (result: object | undefined): SpanAttributes => ({ 'helmcrew.ended_pass': result !== undefined && 'end' in result });
