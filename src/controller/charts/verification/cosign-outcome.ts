import { lastErrorLine } from './tool-error-line.js';

/**
 * Pure: what a `cosign verify` run means, decided by its exit status (cosign's own codes,
 * cmd/cosign/errors/exit_codes.go), never by its wording. stderr is only quoted (bounded).
 *
 * - `verified`: a signature by the key (or identity) checked.
 * - `unsigned`: the artifact has no signature at all (exit 10).
 * - `untrusted`: it has signatures, none by this key or identity (exit 12, 13). cosign v3's own
 *   bundle format (its default since v3) ends that check with exit 1 and `no matching attestations`
 *   (ErrNoMatchingAttestations has no exit code of its own): the one place the wording is read.
 * - `unreachable`: cosign could not read the artifact or its signatures (exit 11, other failures,
 *   a time-out): not a verdict, tried again later and never cached.
 */
export type CosignOutcome =
  | { kind: 'verified' }
  | { kind: 'unsigned' | 'untrusted'; detail: string }
  | { kind: 'unreachable'; detail: string };

export const COSIGN_EXIT = { ImageWithoutSignature: 10, NonExistentTag: 11, NoMatchingSignature: 12, NoCertificateFoundOnSignature: 13 } as const;

const DETAIL_CHARS = 300;
const NO_MATCHING_ATTESTATIONS = 'no matching attestations';

export function cosignOutcome(run: { exitCode: number | undefined; timedOut: boolean; stderr: string; timeoutMs: number }): CosignOutcome {
  if (run.timedOut) return { kind: 'unreachable', detail: `cosign did not finish within ${Math.round(run.timeoutMs / 1000)}s` };
  if (run.exitCode === 0) return { kind: 'verified' };
  if (run.exitCode === undefined) return { kind: 'unreachable', detail: 'cosign could not be started (COSIGN_BIN names it)' };
  const detail = lastErrorLine(run.stderr, DETAIL_CHARS);
  switch (run.exitCode) {
    case COSIGN_EXIT.ImageWithoutSignature:
      return { kind: 'unsigned', detail: 'no signature found' };
    case COSIGN_EXIT.NoMatchingSignature:
    case COSIGN_EXIT.NoCertificateFoundOnSignature:
      return { kind: 'untrusted', detail: detail || 'no matching signature' };
    case 1:
      if (detail.startsWith(NO_MATCHING_ATTESTATIONS)) return { kind: 'untrusted', detail };
      return { kind: 'unreachable', detail };
    default:
      return { kind: 'unreachable', detail: detail || `cosign exited with ${run.exitCode}` };
  }
}
