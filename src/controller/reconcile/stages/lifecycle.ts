import { readSuspension } from '../../../api/annotations.js';
import { ReleaseEvent } from '../../../api/vocabulary.js';
import { describeSuspension, resumedStatus, suspendedStatus } from '../../status/suspension-status.js';
import { reportNotOurs } from '../actions/refuse.js';
import { rollbackRelease } from '../actions/rollback.js';
import { uninstallRelease } from '../actions/uninstall.js';
import { assertNever } from '../decide/assert-never.js';
import { determineLifecycle, nextLifecycleAction, type LifecycleAction } from '../decide/lifecycle-state.js';
import { freezeGate } from './freeze-gate.js';
import { done, isPassEnd, type Pass, type PassEnd } from '../ports/pass.js';

/**
 * Deletion, finalizer, suspension and ownership, decided before anything needs the chart or
 * values (lifecycle-state.ts). Ends the pass unless the object is active, then the spec is next.
 */
export async function lifecycleStage(pass: Pass): Promise<PassEnd | undefined> {
  const action = nextLifecycleAction(determineLifecycle(pass.release, pass.history));
  if (action.kind === 'continue') return undefined;
  // An uninstall or a requested rollback is a helm action: an active freeze holds it too.
  const gate = await freezeGate(pass, action.kind);
  if (isPassEnd(gate)) return gate;
  await actOnLifecycle({ ...pass, release: gate }, action);
  // The suspension is over: the declared spec is reconciled in a new pass.
  return action.kind === 'record-resume' ? { end: 'new-pass' } : done(pass.key, action.kind);
}

/** The one dispatch of the decided lifecycle action. */
async function actOnLifecycle(pass: Pass, action: LifecycleAction): Promise<void> {
  const { ctx, release, target } = pass;
  switch (action.kind) {
    case 'uninstall':
      return uninstallRelease(ctx, release, target);
    case 'remove-finalizer':
      // A release someone else owns: let the object go and leave the release alone; the Event says so.
      if (action.notOurs) await reportNotOurs(ctx, release, target, action.notOurs);
      return ctx.releaseWrites().removeFinalizer(release);
    case 'add-finalizer':
      // The gate writes the finalizer before this stage; an object that still lacks it gets it here.
      await ctx.releaseWrites().addFinalizer(release);
      return;
    case 'rollback':
      return rollbackRelease(ctx, release, target, action.rollback, pass.history);
    case 'record-suspension':
      return recordSuspension(pass);
    case 'record-resume':
      return recordResume(pass);
    case 'report-not-ours':
      return reportNotOurs(ctx, release, target, action.ownership);
    case 'report-suspended':
    case 'nothing':
      return;
    default:
      return assertNever(action);
  }
}

async function recordSuspension({ ctx, release, target }: Pass): Promise<void> {
  const record = readSuspension(release.metadata.annotations);
  await ctx.status.write(release, suspendedStatus(release, record, ctx.now()));
  await ctx.effects().events.record(release, ReleaseEvent.Suspended, describeSuspension(record), {
    action: 'suspend',
    ...(record ? { cause: record.by, attempt: record.at } : {}),
  });
  ctx.log.info({ release: target.key, action: 'suspend', by: record?.by }, 'suspended');
}

async function recordResume({ ctx, release, key }: Pass): Promise<void> {
  await ctx.status.write(release, resumedStatus(release));
  await ctx.effects().events.record(release, ReleaseEvent.Resumed, 'Resumed: back to the declared spec', { action: 'resume' });
  ctx.log.info({ release: key, action: 'resume' }, 'resumed');
}
