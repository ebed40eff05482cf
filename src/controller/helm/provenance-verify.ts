import type { HelmRunner } from './helm-runner.js';
import { HelmError } from './helm-error.js';
import { helmVerifyOutcome, type VerificationOutcome } from '../charts/verification/verification-outcome.js';

/**
 * `helm verify`: helm's own check of a chart archive against the .prov beside it (the archive's
 * SHA-256 in the signed provenance, the signature by a key of the keyring). The keyring is a file
 * path: a binary keyring, as helm reads no armored keys.
 */
export class ProvenanceVerifier {
  constructor(private readonly runner: Pick<HelmRunner, 'run'>) {}

  async verify(req: { key: string; archive: string; keyring: string }): Promise<VerificationOutcome> {
    try {
      const stdout = await this.runner.run(['verify', '--keyring', req.keyring, req.archive], { step: 'other', release: req.key, timeoutMs: 60_000 });
      return helmVerifyOutcome(0, stdout);
    } catch (error) {
      // A helm that timed out or could not start said nothing about the signature: retried, not reported as one.
      if (!(error instanceof HelmError) || error.timedOut || error.exitCode === undefined) throw error;
      return helmVerifyOutcome(error.exitCode, error.stderrTail);
    }
  }
}
