import type { SingleReleaseVerb } from '../plan/verb-kinds.js';
import { correct } from './correct.js';
import { refresh } from './refresh.js';
import { resume } from './resume.js';
import { retry } from './retry.js';
import { rollback } from './rollback.js';
import { suspend } from './suspend.js';
import { test } from './test.js';
import { upgrade } from './upgrade.js';
import type { ReleaseVerbHandler } from './verb-handler.js';

/** Every verb on one release and its handler: a verb row without one here does not compile. */
export const RELEASE_VERB_HANDLERS: { readonly [V in SingleReleaseVerb]: ReleaseVerbHandler<V> } = {
  suspend,
  resume,
  upgrade,
  rollback,
  correct,
  retry,
  test,
  refresh,
};

export function handlerOf<V extends SingleReleaseVerb>(verb: V): ReleaseVerbHandler<V> {
  return RELEASE_VERB_HANDLERS[verb];
}
