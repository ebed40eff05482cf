// The controller's settings that need more than a number or a name: each value checked, and a
// ConfigError that names the variable and what it should be (config.ts reads them).
import { ConfigError } from '../core/config/env.js';
import { commandKeyProblem } from '../core/fleet/signed-command.js';
import { HostPolicyError, parseHostPolicy, type HostPolicy } from './charts/host-policy.js';
import { validGoGC } from './helm/helm-process-env.js';

/** HELMCREW_COMMAND_KEY, checked for length; unset or empty: no commands through Redis. */
export function commandKey(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const problem = commandKeyProblem(raw);
  if (problem) throw new ConfigError(problem);
  return raw;
}

/** Unset or "default": helm keeps Go's own setting (or the GOGC the controller's environment passes on). */
export function helmGoGC(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '' || raw === 'default') return undefined;
  const value = validGoGC(raw);
  if (!value) throw new ConfigError(`${name} must be a whole number of percent (e.g. 200), "off" or "default", got "${raw}"`);
  return value;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function serviceAccountName(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw.length > 253 || !DNS_SUBDOMAIN.test(raw)) {
    throw new ConfigError(`${name} must be a ServiceAccount name (lower-case letters, digits, '-' and '.'), got "${raw}"`);
  }
  return raw;
}

/** HELMCREW_NODE_NAME (a Kubernetes node's name, a DNS subdomain); unset or empty: no node-wide helm limit. */
export function nodeName(name: string, raw: string | undefined): string | undefined {
  const value = raw?.trim() ?? '';
  if (value === '') return undefined;
  if (value.length > 253 || !DNS_SUBDOMAIN.test(value)) {
    throw new ConfigError(`${name} must be a node's name (lower-case letters, digits, '-' and '.'; the chart sets the pod's spec.nodeName), got "${raw}"`);
  }
  return value;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Namespace names, or `*` for every namespace. */
export function clusterScopeNamespaces(name: string, raw: string | undefined): string[] {
  const entries = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = entries.find((entry) => entry !== '*' && (entry.length > 63 || !DNS_LABEL.test(entry)));
  if (bad !== undefined) throw new ConfigError(`${name} must list namespace names (or *), comma-separated; "${bad}" is not one`);
  return entries;
}

export function hostPolicy(name: string, raw: string): HostPolicy {
  try {
    return parseHostPolicy(raw);
  } catch (error) {
    if (error instanceof HostPolicyError) throw new ConfigError(`${name}: ${error.message}`);
    throw error;
  }
}
