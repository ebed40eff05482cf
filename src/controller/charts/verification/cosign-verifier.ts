import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Logger } from '../../../core/log.js';
import { credentialsFor } from '../chart-access.js';
import type { ArtifactVerify, Verdict, VerifyRequest } from './artifact-verify.js';
import { cosignOutcome, type CosignOutcome } from './cosign-outcome.js';
import { VerdictCache } from './verdict-cache.js';

export type { ArtifactVerify, Verdict, VerifyRequest } from './artifact-verify.js';

const TIMEOUT_MS = 60_000;
const MAX_OUTPUT = 1024 * 1024;

/**
 * Runs the real cosign (v3) with argument arrays, one `cosign verify` per key (or accepted
 * identity) until one passes. Keys, the registry's CA and client certificate and its credentials
 * (a docker config.json) are 0600 files in a private folder removed afterwards; the child's
 * environment is its own (HOME and DOCKER_CONFIG point there), so cosign finds nothing of the
 * controller's. Verdicts are kept (verdict-cache.ts): a verified release at rest runs no cosign.
 */
export class CosignVerifier implements ArtifactVerify {
  private readonly verdicts: VerdictCache;

  constructor(
    private readonly opts: {
      cosignBin: string;
      workDir: string;
      log: Logger;
      /** A Sigstore trusted_root.json for keyless verification on the user's own Fulcio/Rekor (COSIGN_TRUSTED_ROOT). */
      trustedRoot?: string;
      timeoutMs?: number;
      now?: () => number;
    },
  ) {
    this.verdicts = new VerdictCache(opts.now);
  }

  verify(request: VerifyRequest): Promise<Verdict> {
    return this.verdicts.verdictOf(request, () => this.run(request));
  }

  private async run(request: VerifyRequest): Promise<Verdict> {
    const dir = await mkdtemp(join(this.opts.workDir, 'cosign-'));
    try {
      const common = await this.commonArgs(dir, request);
      const reference = `${request.repository}@${request.digest}`;
      const attempts = request.keys.length
        ? await Promise.all(
            request.keys.map(async (k, i) => {
              const file = join(dir, `key-${i}.pub`);
              await writeFile(file, k.pem, { mode: 0o600, flag: 'wx' });
              return { label: k.name, args: ['--key', file] };
            }),
          )
        : (request.verify.matchOIDCIdentity ?? []).map((id) => ({
            label: `${id.subject} (${id.issuer})`,
            args: ['--certificate-identity-regexp', id.subject, '--certificate-oidc-issuer-regexp', id.issuer],
          }));
      if (attempts.length === 0) return { ok: false, kind: 'untrusted', message: 'no key (secretRef) and no identity (matchOIDCIdentity) to verify against' };
      const failures: Array<{ label: string; outcome: Exclude<CosignOutcome, { kind: 'verified' }> }> = [];
      // One at a time: the first accepted signer ends it, and a registry is not asked N times at once.
      for (const attempt of attempts) {
        const { outcome, identity } = await this.cosign(dir, ['verify', ...common, ...attempt.args, reference]);
        if (outcome.kind === 'verified') return { ok: true, signedBy: identity ?? attempt.label };
        failures.push({ label: attempt.label, outcome });
      }
      return verdictOf(failures);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async commonArgs(dir: string, request: VerifyRequest): Promise<string[]> {
    const { access, keys } = request;
    // Keys: no transparency log (Flux's default for keys too); keyless: the user's trust root, with Rekor.
    const args = keys.length ? ['--insecure-ignore-tlog=true'] : this.opts.trustedRoot ? ['--trusted-root', this.opts.trustedRoot] : [];
    if (access.insecure) args.push('--allow-http-registry=true');
    if (access.tls?.ca) args.push('--registry-cacert', await privateFile(dir, 'ca.crt', access.tls.ca));
    if (access.tls?.cert && access.tls.key) {
      args.push('--registry-client-cert', await privateFile(dir, 'tls.crt', access.tls.cert));
      args.push('--registry-client-key', await privateFile(dir, 'tls.key', access.tls.key));
    }
    const host = request.repository.split('/')[0]!;
    const login = credentialsFor(access, host);
    const auths = login ? { [host]: { auth: Buffer.from(`${login.username}:${login.password}`).toString('base64') } } : {};
    await privateFile(dir, 'config.json', JSON.stringify({ auths }));
    return args;
  }

  private async cosign(dir: string, args: string[]): Promise<{ outcome: CosignOutcome; identity?: string }> {
    const timeoutMs = this.opts.timeoutMs ?? TIMEOUT_MS;
    const started = Date.now();
    const result = await execa(this.opts.cosignBin, args, {
      env: { HOME: dir, DOCKER_CONFIG: dir, PATH: '/usr/bin:/bin', TUF_ROOT: join(dir, 'tuf') },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: timeoutMs,
      maxBuffer: MAX_OUTPUT,
    });
    const outcome = cosignOutcome({ exitCode: result.exitCode, timedOut: result.timedOut, stderr: String(result.stderr ?? ''), timeoutMs });
    this.opts.log.info({ action: 'cosign verify', exitCode: result.exitCode, outcome: outcome.kind, durationMs: Date.now() - started }, 'cosign ran');
    return { outcome, ...(outcome.kind === 'verified' ? signerIdentity(String(result.stdout ?? '')) : {}) };
  }
}

export async function privateFile(dir: string, name: string, content: string | Buffer): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, content, { mode: 0o600, flag: 'wx' });
  return file;
}

/** Keyless: the certificate's subject cosign printed (its JSON payload's `optional.Subject`). */
function signerIdentity(stdout: string): { identity?: string } {
  for (const line of stdout.split('\n')) {
    try {
      const parsed = JSON.parse(line) as Array<{ optional?: { Subject?: unknown } }>;
      const subject = Array.isArray(parsed) ? parsed.find((p) => typeof p.optional?.Subject === 'string')?.optional?.Subject : undefined;
      if (typeof subject === 'string' && subject) return { identity: subject };
    } catch {
      // not JSON: cosign's other lines
    }
  }
  return {};
}

/** Pure: the verdict when no key or identity verified: unreachable wins (not a verdict), then untrusted, then unsigned. Messages name the check, not the artifact (the caller does). */
export function verdictOf(failures: Array<{ label: string; outcome: Exclude<CosignOutcome, { kind: 'verified' }> }>): Verdict {
  const unreachable = failures.find((f) => f.outcome.kind === 'unreachable');
  if (unreachable) return { ok: false, kind: 'unreachable', message: `cosign could not check it: ${unreachable.outcome.detail}` };
  if (failures.every((f) => f.outcome.kind === 'unsigned')) return { ok: false, kind: 'unsigned', message: 'cosign: no signature' };
  const tried = failures.map((f) => f.label).join(', ');
  return { ok: false, kind: 'untrusted', message: `cosign: no signature by an accepted key or identity (tried ${tried})` };
}
