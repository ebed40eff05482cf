import { BlockList, isIP } from 'node:net';

/**
 * Which chart repository hosts the controller may contact. Pure: the decision takes the host
 * name and the addresses it resolved to, so a name pointing at a metadata or loopback address is
 * caught too.
 *
 * The operator's list (HELMCREW_ALLOWED_REPOSITORY_HOSTS) holds, comma-separated:
 *   `*`                  any host name with public addresses
 *   `charts.example.com` exactly this host name
 *   `*.example.com`      any name under example.com (public addresses)
 *   `10.0.0.0/8`, `fd00::/8`, `192.0.2.7`  addresses (a name is allowed when all its addresses are)
 * Empty (the default): no host at all; the operator names the repositories its tenants may use.
 * Addresses that reach inside the cluster's own network are refused unless listed explicitly:
 * loopback and private ranges need an exact name entry or an address entry covering them (a
 * wildcard does not do); link-local ones (169.254.0.0/16, fe80::/10: cloud metadata services)
 * and well-known metadata host names need an address entry (or, for the names, an exact one).
 */

export const DEFAULT_ALLOWED_REPOSITORY_HOSTS = '';

/** Where the refusal points the operator. */
export const ALLOWED_HOSTS_SETTING = 'HELMCREW_ALLOWED_REPOSITORY_HOSTS (chart value repositories.allowedHosts)';

const METADATA_NAMES = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);

export interface HostPolicy {
  anyName: boolean;
  names: Set<string>;
  /** Suffixes starting with a dot: `*.example.com` → `.example.com`. */
  suffixes: string[];
  addresses: BlockList;
  /** The list as written, for messages. */
  text: string;
}

export class HostPolicyError extends Error {
  override name = 'HostPolicyError';
}

export function parseHostPolicy(text: string): HostPolicy {
  const policy: HostPolicy = { anyName: false, names: new Set(), suffixes: [], addresses: new BlockList(), text };
  for (const raw of text.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') {
      policy.anyName = true;
    } else if (entry.includes('/')) {
      const [address, bits] = entry.split('/');
      const family = isIP(address ?? '');
      const prefix = Number(bits);
      if (!family || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) throw new HostPolicyError(`"${raw.trim()}" is not a CIDR like 10.0.0.0/8`);
      policy.addresses.addSubnet(address!, prefix, family === 4 ? 'ipv4' : 'ipv6');
    } else if (isIP(entry)) {
      policy.addresses.addAddress(entry, isIP(entry) === 4 ? 'ipv4' : 'ipv6');
    } else if (entry.startsWith('*.') && HOST_NAME.test(entry.slice(2))) {
      policy.suffixes.push(entry.slice(1));
    } else if (HOST_NAME.test(entry)) {
      policy.names.add(entry);
    } else {
      throw new HostPolicyError(`"${raw.trim()}" is not a host name, *.domain, address or CIDR`);
    }
  }
  return policy;
}

const HOST_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const blockList = (entries: Array<[string, number, 'ipv4' | 'ipv6']>) => {
  const list = new BlockList();
  for (const [address, prefix, family] of entries) list.addSubnet(address, prefix, family);
  return list;
};

/** What kind of address a repository may not be by accident: the ones that reach the cluster's inside. */
export type AddressClass = 'link-local' | 'loopback' | 'private' | 'public';

const ADDRESS_CLASSES: Array<[Exclude<AddressClass, 'public'>, BlockList]> = [
  // AWS's IPv6 metadata endpoint lives in unique-local space: link-local for this purpose.
  [
    'link-local',
    blockList([
      ['169.254.0.0', 16, 'ipv4'],
      ['fe80::', 10, 'ipv6'],
      ['fd00:ec2::254', 128, 'ipv6'],
    ]),
  ],
  // 0.0.0.0/8 and :: reach this host as 127.0.0.1 does.
  [
    'loopback',
    blockList([
      ['127.0.0.0', 8, 'ipv4'],
      ['0.0.0.0', 8, 'ipv4'],
      ['::1', 128, 'ipv6'],
      ['::', 128, 'ipv6'],
    ]),
  ],
  // RFC 1918, carrier-grade NAT (some clusters' pod ranges) and IPv6 unique-local.
  [
    'private',
    blockList([
      ['10.0.0.0', 8, 'ipv4'],
      ['172.16.0.0', 12, 'ipv4'],
      ['192.168.0.0', 16, 'ipv4'],
      ['100.64.0.0', 10, 'ipv4'],
      ['fc00::', 7, 'ipv6'],
    ]),
  ],
];

/** `::ffff:169.254.169.254` is 169.254.169.254: check the IPv4 it carries. */
function normalizeAddress(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1]!, family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/** Pure: which class an address literal is in. */
export function classifyAddress(raw: string): AddressClass {
  const { address, family } = normalizeAddress(raw);
  return ADDRESS_CLASSES.find(([, list]) => list.check(address, family))?.[0] ?? 'public';
}

export type HostDecision = { allowed: true } | { allowed: false; why: string };

/**
 * Pure: may the controller contact `host` (a URL's host name, brackets stripped), resolved to
 * `addresses` (the host itself when it is an address literal)?
 */
export function decideRepositoryHost(policy: HostPolicy, host: string, addresses: string[]): HostDecision {
  const name = host.toLowerCase().replace(/\.$/, '');
  const literal = isIP(name) !== 0;
  const explicitName = !literal && policy.names.has(name);
  const listedName = explicitName || policy.anyName || (!literal && policy.suffixes.some((s) => name.endsWith(s)));
  const refuse = (why: string): HostDecision => ({ allowed: false, why: `${why}; ${ALLOWED_HOSTS_SETTING} allows it` });
  if (!literal && METADATA_NAMES.has(name) && !explicitName) return refuse(`${host} is a cloud metadata host, refused unless listed by name`);
  if (addresses.length === 0) return { allowed: false, why: `${host} resolved to no address` };
  for (const raw of addresses) {
    const { address, family } = normalizeAddress(raw);
    const listedAddress = policy.addresses.check(address, family);
    const where = literal ? `${host} is` : `${host} resolves to`;
    switch (classifyAddress(address)) {
      case 'link-local':
        if (!listedAddress) return refuse(`${where} the link-local address ${address} (cloud metadata services live there), refused unless an address entry covers it`);
        break;
      case 'loopback':
      case 'private':
        if (!listedAddress && !explicitName) {
          return refuse(`${where} the ${classifyAddress(address)} address ${address}, refused unless listed by exact name or address`);
        }
        break;
      case 'public':
        break;
    }
    if (!listedName && !listedAddress) {
      return refuse(`${host} is not in the allowed repository hosts (${policy.text.trim() ? policy.text : 'none listed'})`);
    }
  }
  return { allowed: true };
}
