import { createHash } from 'node:crypto';
import { clusterAclPattern, fleetBase, fleetFreezesKey, fleetIndexKey, fleetKeyspace } from './cluster-keys.js';

/**
 * Redis ACL users for a fleet (pure; docs/redis.md shows the lines, the ACL test loads them into
 * redis-server). An agent may touch only its cluster's keyspace, plus SADD of its name to the
 * fleet index and HGETALL of the fleet freezes (it must hold them, and may not lift or forge one);
 * the hub (the fleet's bot, notify and web) every cluster's keyspace and the fleet's own keys.
 * Commands that reach past key patterns are taken away: SCAN, KEYS and RANDOMKEY would show other
 * clusters' key names, FLUSH*, SCRIPT FLUSH and FUNCTION would reach everyone's data or scripts.
 * Passwords are written as their SHA-256 (`#…`), never in clear.
 */

/** What BullMQ and helmcrew need (scripts, streams, blocking pops, INFO for the version check, CLIENT SETNAME) and nothing that crosses keyspaces. */
const COMMANDS = '+@all -@dangerous -@admin +info +client|setname +client|getname +client|id -scan -randomkey -script|flush -function';

function passwordRule(password: string): string {
  return `#${createHash('sha256').update(password).digest('hex')}`;
}

/** The ACL line of cluster `cluster`'s agents (controller, and a notify or bot kept in that cluster). */
export function agentAclLine(user: string, password: string, fleetPrefix: string, cluster: string): string {
  // Its channels are its keyspace's too: the leader's new-generation broadcast (generation-broadcast.ts).
  const own = clusterAclPattern(fleetPrefix, cluster);
  return `user ${user} on ${passwordRule(password)} resetkeys ~${own} resetchannels &${own} ${COMMANDS} (~${fleetIndexKey(fleetPrefix)} +sadd) (~${fleetFreezesKey(fleetPrefix)} +hgetall)`;
}

/** The ACL line of the fleet's hub: every named cluster's keyspace (`{<prefix>:*}:*`) and the fleet's own keys (index, freezes, notify's channel buckets). */
export function hubAclLine(user: string, password: string, fleetPrefix: string): string {
  return `user ${user} on ${passwordRule(password)} resetkeys ~{${fleetBase(fleetPrefix)}:*}:* ~${fleetKeyspace(fleetPrefix)}:* resetchannels ${COMMANDS}`;
}

/** The users a fleet's ACL file holds: one agent per cluster, named `agent-<cluster>`, and the hub. */
export function fleetUserNames(clusters: readonly string[]): string[] {
  return [...clusters.map((c) => `agent-${c}`), 'hub'];
}

/** The ACL file's lines for `clusters` (each agent's, then the hub's); `passwords` by user name. */
export function fleetAclLines(fleetPrefix: string, clusters: readonly string[], passwords: ReadonlyMap<string, string>): string[] {
  const password = (user: string) => {
    const value = passwords.get(user);
    if (value === undefined) throw new Error(`no password for ${user}`);
    return value;
  };
  return [...clusters.map((c) => agentAclLine(`agent-${c}`, password(`agent-${c}`), fleetPrefix, c)), hubAclLine('hub', password('hub'), fleetPrefix)];
}
