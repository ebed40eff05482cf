import { BlockList, isIP } from 'node:net';

/**
 * Which chart repository hosts the controller may contact. Pure: the decision takes the host
 * name and the addresses it resolved to, so a name pointing at a metadata address is caught too.
 *
 * The operator's list (HELMCREW_ALLOWED_REPOSITORY_HOSTS) holds, comma-separated:
 *   `*`                  any host
 *   `charts.example.com` exactly this host name
 *   `*.example.com`      any name under example.com
 *   `10.0.0.0/8`, `fd00::/8`, `192.0.2.7`  addresses (a name is allowed when all its addresses are)
 * Link-local addresses (169.254.0.0/16, fe80::/10: cloud metadata services) and well-known
 * metadata host names are refused whatever the list says, unless an address entry or an exact
 * name entry covers them explicitly.
 */

export const DEFAULT_ALLOWED_REPOSITORY_HOSTS = '*';

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

const LINK_LOCAL = (() => {
  const list = new BlockList();
  list.addSubnet('169.254.0.0', 16, 'ipv4');
  list.addSubnet('fe80::', 10, 'ipv6');
  // AWS's IPv6 metadata endpoint lives in unique-local space.
  list.addAddress('fd00:ec2::254', 'ipv6');
  return list;
})();

export type HostDecision = { allowed: true } | { allowed: false; why: string };

/** `::ffff:169.254.169.254` is 169.254.169.254: check the IPv4 it carries. */
function normalizeAddress(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1]!, family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/**
 * Pure: may the controller contact `host` (a URL's host name, brackets stripped), resolved to
 * `addresses` (the host itself when it is an address literal)?
 */
export function decideRepositoryHost(policy: HostPolicy, host: string, addresses: string[]): HostDecision {
  const name = host.toLowerCase().replace(/\.$/, '');
  const literal = isIP(name) !== 0;
  const explicitName = !literal && policy.names.has(name);
  const listedName = explicitName || policy.anyName || (!literal && policy.suffixes.some((s) => name.endsWith(s)));
  if (!literal && METADATA_NAMES.has(name) && !explicitName) return { allowed: false, why: `${host} is a cloud metadata host` };
  if (addresses.length === 0) return { allowed: false, why: `${host} resolved to no address` };
  for (const raw of addresses) {
    const { address, family } = normalizeAddress(raw);
    const listedAddress = policy.addresses.check(address, family);
    if (LINK_LOCAL.check(address, family) && !listedAddress) {
      return { allowed: false, why: `${host} resolves to the link-local address ${address} (cloud metadata services live there)` };
    }
    if (!listedName && !listedAddress) return { allowed: false, why: `${host} is not in the allowed repository hosts (${policy.text})` };
  }
  return { allowed: true };
}
