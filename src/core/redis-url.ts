/**
 * What `REDIS_URL` names: one Redis (`redis://`, `rediss://`, as ioredis reads them), a
 * Sentinel set that tells which node is the primary, or a Redis Cluster found from seed nodes:
 *
 *   redis+sentinel://[[username]:password@]host1:port1,host2:port2,host3:port3/<masterName>[/<db>][?sentinelPassword=…]
 *   redis+cluster://[[username]:password@]host1:port1,host2:port2,…   (rediss+cluster:// for TLS)
 *
 * The user and password are for the Redis primaries and replicas; `sentinelPassword` (percent-encoded)
 * for sentinels that require one. A port left out is Sentinel's 26379, a cluster node's 6379.
 * A cluster has no databases (only 0): a path after its nodes is refused.
 */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | {
      kind: 'sentinel';
      sentinels: Array<{ host: string; port: number }>;
      masterName: string;
      db: number;
      username?: string;
      password?: string;
      sentinelPassword?: string;
    }
  | {
      kind: 'cluster';
      /** Seed nodes: ioredis asks them for the slot map and then talks to every primary itself. */
      nodes: Array<{ host: string; port: number }>;
      tls: boolean;
      username?: string;
      password?: string;
    };

export const SENTINEL_SCHEME = 'redis+sentinel://';
export const DEFAULT_SENTINEL_PORT = 26379;
const FORM = `${SENTINEL_SCHEME}[:password@]host1:port1,host2:port2/<masterName>[/<db>]`;
export const CLUSTER_SCHEME = 'redis+cluster://';
export const CLUSTER_TLS_SCHEME = 'rediss+cluster://';
export const DEFAULT_CLUSTER_PORT = 6379;
const CLUSTER_FORM = `${CLUSTER_SCHEME}[[user]:password@]host1:port1,host2:port2,…`;

/** What is wrong with a REDIS_URL, in one line that never quotes a password. */
export interface InvalidRedisUrl {
  kind: 'invalid';
  message: string;
}

class Invalid extends Error {}

/** Pure: what a REDIS_URL names, or why it names nothing. */
export function parseRedisUrl(url: string): RedisTarget | InvalidRedisUrl {
  try {
    return parse(url);
  } catch (error) {
    if (error instanceof Invalid) return { kind: 'invalid', message: error.message };
    throw error;
  }
}

function parse(url: string): RedisTarget {
  if (url.startsWith('redis://') || url.startsWith('rediss://')) return parseSingle(url);
  if (url.startsWith(SENTINEL_SCHEME)) return parseSentinel(url.slice(SENTINEL_SCHEME.length));
  if (url.startsWith(CLUSTER_SCHEME)) return parseCluster(url.slice(CLUSTER_SCHEME.length), false);
  if (url.startsWith(CLUSTER_TLS_SCHEME)) return parseCluster(url.slice(CLUSTER_TLS_SCHEME.length), true);
  if (url.startsWith('rediss+sentinel://'))
    throw new Invalid(`REDIS_URL: TLS through Sentinel (rediss+sentinel://) is not supported; use ${SENTINEL_SCHEME}… or one rediss:// URL`);
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1];
  throw new Invalid(
    `REDIS_URL must start with redis://, rediss://, ${SENTINEL_SCHEME} or ${CLUSTER_SCHEME}` +
      (scheme ? `, not ${scheme}://` : ` (one Redis, a Sentinel set: ${FORM}, or a Redis Cluster: ${CLUSTER_FORM})`),
  );
}

function parseSingle(url: string): RedisTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Invalid('REDIS_URL is not a valid URL (percent-encode special characters in the password)');
  }
  if (!parsed.hostname) throw new Invalid('REDIS_URL names no host');
  const db = parsed.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) throw new Invalid(`REDIS_URL: the path must be a database number, not "/${db}"`);
  return { kind: 'single', url };
}

function parseSentinel(rest: string): RedisTarget {
  const [beforeQuery = '', query, ...moreQueries] = rest.split('?');
  if (moreQueries.length > 0) throw new Invalid('REDIS_URL has more than one "?"');
  const slash = beforeQuery.indexOf('/');
  const authority = slash === -1 ? beforeQuery : beforeQuery.slice(0, slash);
  const path = slash === -1 ? '' : beforeQuery.slice(slash + 1);
  const at = authority.lastIndexOf('@');
  const credentials = at === -1 ? undefined : parseCredentials(authority.slice(0, at));
  const hosts = at === -1 ? authority : authority.slice(at + 1);
  if (hosts === '') throw new Invalid(`REDIS_URL names no sentinel: write ${FORM}`);
  const sentinels = hosts.split(',').map((entry) => parseHostPort(entry, 'sentinel', DEFAULT_SENTINEL_PORT));
  const [masterName, db, ...extra] = path === '' ? [] : path.split('/');
  if (!masterName) throw new Invalid(`REDIS_URL names no master: add /<masterName> after the sentinels (${FORM})`);
  if (extra.length > 0) throw new Invalid(`REDIS_URL: after /${masterName}/${db ?? ''} nothing more may follow (${FORM})`);
  if (db !== undefined && !/^\d+$/.test(db)) throw new Invalid(`REDIS_URL: the database after /${masterName}/ must be a number, not "${db}"`);
  const target: RedisTarget = { kind: 'sentinel', sentinels, masterName: decodePart(masterName, 'the master name'), db: db ? Number(db) : 0 };
  if (credentials?.username) target.username = credentials.username;
  if (credentials?.password) target.password = credentials.password;
  const sentinelPassword = parseQuery(query);
  if (sentinelPassword) target.sentinelPassword = sentinelPassword;
  return target;
}

function parseCluster(rest: string, tls: boolean): RedisTarget {
  if (rest.includes('?')) throw new Invalid(`REDIS_URL: a Redis Cluster URL takes no parameters (${CLUSTER_FORM})`);
  const slash = rest.indexOf('/');
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '' : rest.slice(slash + 1);
  if (path !== '') throw new Invalid(`REDIS_URL: a Redis Cluster has only database 0; nothing may follow its nodes, not "/${path}" (${CLUSTER_FORM})`);
  const at = authority.lastIndexOf('@');
  const credentials = at === -1 ? undefined : parseCredentials(authority.slice(0, at));
  const hosts = at === -1 ? authority : authority.slice(at + 1);
  if (hosts === '') throw new Invalid(`REDIS_URL names no cluster node: write ${CLUSTER_FORM}`);
  const target: RedisTarget = { kind: 'cluster', nodes: hosts.split(',').map((entry) => parseHostPort(entry, 'cluster node', DEFAULT_CLUSTER_PORT)), tls };
  if (credentials?.username) target.username = credentials.username;
  if (credentials?.password) target.password = credentials.password;
  return target;
}

function parseCredentials(userinfo: string): { username?: string; password?: string } {
  const colon = userinfo.indexOf(':');
  const username = decodePart(colon === -1 ? userinfo : userinfo.slice(0, colon), 'the user name');
  const password = colon === -1 ? undefined : decodePart(userinfo.slice(colon + 1), 'the password');
  return { username: username || undefined, password: password || undefined };
}

function parseHostPort(entry: string, what: 'sentinel' | 'cluster node', defaultPort: number): { host: string; port: number } {
  // [::1]:26379 for IPv6; a name or IPv4 address otherwise.
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+))(?::(\d*))?$/.exec(entry);
  if (!match) throw new Invalid(`REDIS_URL: "${entry}" is not a ${what} host[:port] (${what}s are separated by commas)`);
  const host = match[1] ?? match[2] ?? '';
  const portText = match[3];
  if (portText === undefined) return { host, port: defaultPort };
  const port = Number(portText);
  if (portText === '' || !Number.isInteger(port) || port < 1 || port > 65535) throw new Invalid(`REDIS_URL: ${what} "${entry}" has no valid port (1-65535)`);
  return { host, port };
}

function parseQuery(query: string | undefined): string | undefined {
  if (query === undefined || query === '') return undefined;
  let sentinelPassword: string | undefined;
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    const name = eq === -1 ? pair : pair.slice(0, eq);
    if (name !== 'sentinelPassword') throw new Invalid(`REDIS_URL: unknown parameter "${name}" (only sentinelPassword is understood)`);
    sentinelPassword = decodePart(eq === -1 ? '' : pair.slice(eq + 1), 'sentinelPassword');
  }
  return sentinelPassword;
}

function decodePart(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new Invalid(`REDIS_URL: ${what} has a bad percent-encoding`);
  }
}

/** The target without any password, for logs. */
export function describeRedisTarget(target: RedisTarget): string {
  const hostPorts = (nodes: Array<{ host: string; port: number }>) =>
    nodes.map((s) => (s.host.includes(':') ? `[${s.host}]` : s.host) + `:${s.port}`).join(',');
  if (target.kind === 'sentinel') return `sentinel master "${target.masterName}" db ${target.db} via ${hostPorts(target.sentinels)}`;
  if (target.kind === 'cluster') return `redis cluster${target.tls ? ' (TLS)' : ''} via ${hostPorts(target.nodes)}`;
  const parsed = new URL(target.url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
