import { readSuspension } from '../../../api/annotations.js';
import { ReleaseEvent } from '../../../api/vocabulary.js';
import { describeSuspension, resumedStatus, suspendedStatus } from '../../status/suspension-status.js';
import { reportNotOurs } from '../actions/refuse.js';
import { rollbackRelease } from '../actions/rollback.js';
import { uninstallRelease } from '../actions/uninstall.js';
import { assertNever } from '../assert-never.js';
import { determineLifecycle, nextLifecycleAction, type LifecycleState } from '../lifecycle-state.js';
import { freezeGate } from './freeze-gate.js';
import { done, isPassEnd, type Pass, type PassEnd } from './pass.js';

/**
 * Deletion, finalizer, suspension and ownership, decided before anything needs the chart or
 * values (lifecycle-state.ts). Ends the pass unless the object is active, then the spec is next.
 */
export async function lifecycleStage(pass: Pass): Promise<PassEnd | undefined> {
  const state = determineLifecycle(pass.release, pass.history);
  const action = nextLifecycleAction(state);
  if (action === 'continue') return undefined;
  // An uninstall or a requested rollback is a helm action: an active freeze holds it too.
  const gate = await freezeGate(pass, action);
  if (isPassEnd(gate)) return gate;
  await actOnLifecycle({ ...pass, release: gate }, state);
  // The suspension is over: the declared spec is reconciled in a new pass.
  return action === 'record-resume' ? { end: 'new-pass' } : done(pass.key, action);
}

async function actOnLifecycle(pass: Pass, state: LifecycleState): Promise<void> {
  const { ctx, release, target } = pass;
  switch (state.kind) {
    case 'deleting-installed':
      return uninstallRelease(ctx, release, target);
    case 'deleting-not-ours':
      // Let the object go and leave the release alone; the Event says so.
      await reportNotOurs(ctx, release, target, state.ownership);
      return ctx.api.removeFinalizer(release);
    case 'deleting-suspended':
    case 'deleting-not-installed':
      return ctx.api.removeFinalizer(release);
    case 'needs-finalizer':
      // The gate writes the finalizer before this stage; an object that still lacks it gets it here.
      await ctx.api.addFinalizer(release);
      return;
    case 'rollback-requested':
      return rollbackRelease(ctx, release, target, state.rollback, pass.history);
    case 'suspended':
      return recordSuspension(pass);
    case 'resumed':
      return recordResume(pass);
    case 'not-ours':
      return reportNotOurs(ctx, release, target, state.ownership);
    case 'suspension-recorded':
    case 'deleted':
    case 'active':
      return;
    default:
      return assertNever(state);
  }
}

async function recordSuspension({ ctx, release, target }: Pass): Promise<void> {
  const record = readSuspension(release.metadata.annotations);
  await ctx.status.write(release, suspendedStatus(release, record, ctx.now()));
  await ctx.events.record(release, ReleaseEvent.Suspended, describeSuspension(record), {
    action: 'suspend',
    ...(record ? { cause: record.by, attempt: record.at } : {}),
  });
  ctx.log.info({ release: target.key, action: 'suspend', by: record?.by }, 'suspended');
}

async function recordResume({ ctx, release, key }: Pass): Promise<void> {
  await ctx.status.write(release, resumedStatus(release));
  await ctx.events.record(release, ReleaseEvent.Resumed, 'Resumed: back to the declared spec', { action: 'resume' });
  ctx.log.info({ release: key, action: 'resume' }, 'resumed');
}
