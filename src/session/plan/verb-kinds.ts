import type { MutatingVerb } from '../grammar/command.js';

/** The mutating verbs that act on one release (all but freeze and unfreeze, which write Freezes): each has a handler in session/verbs/. */
export type SingleReleaseVerb = Exclude<MutatingVerb, 'freeze' | 'unfreeze'>;
