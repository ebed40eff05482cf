import { execa } from 'execa';
import type { ExecPlugin } from '../../core/release/target-cluster.js';

/** What a kubeconfig exec plugin answered: a bearer token or a client certificate, and until when. */
export interface ExecCredential {
  token?: string;
  cert?: Buffer;
  key?: Buffer;
  /** After this the plugin is run again; undefined: good until the Secret changes. */
  expiresAt?: number;
}

/** A plugin that failed or answered something else than an ExecCredential; the message never quotes its output. */
export class ExecCredentialError extends Error {
  override name = 'ExecCredentialError';
}

const PLUGIN_TIMEOUT_MS = 30_000;

/**
 * Runs a kubeconfig's exec plugin as client-go does (KUBERNETES_EXEC_INFO, non-interactive) and
 * reads its ExecCredential. Only reached when the operator allows it (HELMCREW_ALLOW_KUBECONFIG_EXEC):
 * it runs a program named by a Secret inside the controller.
 */
export async function runExecPlugin(plugin: ExecPlugin): Promise<ExecCredential> {
  const info = { apiVersion: plugin.apiVersion, kind: 'ExecCredential', spec: { interactive: false } };
  const result = await execa(plugin.command, plugin.args, {
    env: { ...plugin.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) },
    extendEnv: true,
    reject: false,
    stdin: 'ignore',
    timeout: PLUGIN_TIMEOUT_MS,
  });
  if (result.failed)
    throw new ExecCredentialError(`exec plugin ${plugin.command} failed (exit code ${result.exitCode ?? 'none'}${result.timedOut ? ', timed out' : ''})`);
  return parseExecCredential(String(result.stdout ?? ''), plugin.command);
}

/** Pure: the credential in a plugin's output. */
export function parseExecCredential(stdout: string, command: string): ExecCredential {
  let status: Record<string, unknown> | undefined;
  try {
    status = (JSON.parse(stdout) as { status?: Record<string, unknown> }).status;
  } catch {
    // The output is a credential: it is never quoted.
  }
  if (!status || typeof status !== 'object') throw new ExecCredentialError(`exec plugin ${command} printed no ExecCredential status`);
  const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined);
  const token = text(status.token);
  const cert = text(status.clientCertificateData);
  const key = text(status.clientKeyData);
  if (!token && !(cert && key)) throw new ExecCredentialError(`exec plugin ${command} gave neither a token nor a client certificate and key`);
  const expiry = text(status.expirationTimestamp);
  const expiresAt = expiry ? Date.parse(expiry) : undefined;
  return {
    ...(token ? { token } : {}),
    ...(cert && key ? { cert: Buffer.from(cert), key: Buffer.from(key) } : {}),
    ...(expiresAt !== undefined && !Number.isNaN(expiresAt) ? { expiresAt } : {}),
  };
}
