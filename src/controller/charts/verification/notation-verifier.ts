import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Logger } from '../../../core/log.js';
import { credentialsFor } from '../chart-access.js';
import { privateFile, type ArtifactVerify, type Verdict, type VerifyRequest } from './cosign-verifier.js';
import { notationOutcome } from './notation-outcome.js';
import { TRUST_POLICY_KEY } from './notation-trust.js';
import { VerdictCache } from './verdict-cache.js';

const TIMEOUT_MS = 60_000;
const MAX_OUTPUT = 1024 * 1024;

/**
 * Runs tools/notation-verify (notation-go, built into the toolchain and the image) with argument
 * arrays: the key Secret's trust policy and certificates, the registry's CA, client certificate and
 * login (a docker config.json) are 0600 files in a private folder removed afterwards; the child's
 * environment is its own. One run checks every signature of the digest against the policy. Verdicts
 * are kept as cosign's are (verdict-cache.ts): a verified release at rest runs no notation.
 */
export class NotationVerifier implements ArtifactVerify {
  private readonly verdicts: VerdictCache;

  constructor(private readonly opts: { bin: string; workDir: string; log: Logger; timeoutMs?: number; now?: () => number }) {
    this.verdicts = new VerdictCache(opts.now);
  }

  verify(request: VerifyRequest): Promise<Verdict> {
    return this.verdicts.verdictOf(request, () => this.run(request));
  }

  private async run(request: VerifyRequest): Promise<Verdict> {
    if (!request.trust) return { ok: false, kind: 'key-secret', message: 'notation needs secretRef (a trust policy and certificates)' };
    const dir = await mkdtemp(join(this.opts.workDir, 'notation-'));
    try {
      const store = join(dir, 'truststore');
      await mkdir(store, { mode: 0o700 });
      for (const cert of request.trust.certificates) await privateFile(store, cert.name, cert.pem);
      const args = [
        'verify',
        '--reference',
        `${request.repository}@${request.digest}`,
        '--trust-policy',
        await privateFile(dir, TRUST_POLICY_KEY, request.trust.trustPolicy),
        '--trust-store',
        store,
        ...(await this.registryArgs(dir, request)),
      ];
      const timeoutMs = this.opts.timeoutMs ?? TIMEOUT_MS;
      const started = Date.now();
      const result = await execa(this.opts.bin, args, {
        env: { HOME: dir, PATH: '/usr/bin:/bin' },
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
        timeout: timeoutMs,
        maxBuffer: MAX_OUTPUT,
      });
      const verdict = notationOutcome({
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        stdout: String(result.stdout ?? ''),
        stderr: String(result.stderr ?? ''),
        timeoutMs,
      });
      this.opts.log.info(
        { action: 'notation verify', exitCode: result.exitCode, outcome: verdict.ok ? 'verified' : verdict.kind, durationMs: Date.now() - started },
        'notation ran',
      );
      return verdict;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async registryArgs(dir: string, request: VerifyRequest): Promise<string[]> {
    const { access } = request;
    const args = access.insecure ? ['--plain-http'] : [];
    if (access.tls?.ca) args.push('--ca-file', await privateFile(dir, 'ca.crt', access.tls.ca));
    if (access.tls?.cert && access.tls.key) {
      args.push('--client-cert', await privateFile(dir, 'tls.crt', access.tls.cert));
      args.push('--client-key', await privateFile(dir, 'tls.key', access.tls.key));
    }
    const host = request.repository.split('/')[0]!;
    const login = credentialsFor(access, host);
    if (login) {
      const auths = { [host]: { auth: Buffer.from(`${login.username}:${login.password}`).toString('base64') } };
      args.push('--registry-config', await privateFile(dir, 'config.json', JSON.stringify({ auths })));
    }
    return args;
  }
}
