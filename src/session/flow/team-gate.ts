import { authorizeAction } from '../authz/authorize-action.js';
import { authorize, teamsOf } from '../authz/authorize.js';
import type { AuthzTarget, Subject, TeamPolicy } from '../authz/policy-types.js';
import { namespaceAuthzTarget, releaseAuthzTarget } from '../authz/targets.js';
import type { QueryCommand } from '../execute/queries.js';
import { findRelease, type ReleaseLookup } from '../execute/find-release.js';
import type { Gate } from './ports.js';

/** Who may, from the Teams (every surface where a person is known — Slack, web, assistants — uses this one gate): a query on its release or namespace (freezes: any Team member), an action on each target. */
export function teamGate(subject: () => Promise<Subject>, teams: () => Promise<TeamPolicy[]>): Gate {
  return {
    async query(command: QueryCommand, api: ReleaseLookup) {
      if (command.verb === 'help') return undefined;
      // Freezes say why changes wait: any Team member may see them.
      if (command.verb === 'freezes') return teamsOf(await subject(), await teams()).length === 0 ? 'you may not list freezes: you are in no Team' : undefined;
      // Open proposals are posted in Team channels: any Team member may list them.
      if (command.verb === 'proposals')
        return teamsOf(await subject(), await teams()).length === 0 ? 'you may not list proposals: you are in no Team' : undefined;
      let target: AuthzTarget;
      const cluster = 'cluster' in command ? command.cluster : undefined;
      if (command.verb === 'list') target = namespaceAuthzTarget(command.namespace, cluster);
      else {
        const resolved = await findRelease(api, command.release);
        if (!resolved.ok) return resolved.message;
        target = releaseAuthzTarget(resolved.release, cluster);
      }
      const decision = authorize(await subject(), command.verb, target, await teams());
      return decision.allowed ? undefined : decision.reason;
    },
    action: async (action) => authorizeAction(await subject(), action, await teams()),
    // A promotion changes the target as an upgrade would: proposing one takes `upgrade` there (the votes then take `approve`).
    async propose(target) {
      const decision = authorize(await subject(), 'upgrade', target, await teams());
      return decision.allowed ? undefined : decision.reason;
    },
  };
}
