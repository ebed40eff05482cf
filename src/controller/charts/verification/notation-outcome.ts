import type { Verdict } from './artifact-verify.js';
import { lastErrorLine } from './tool-error-line.js';

/**
 * Pure: what a `notation-verify verify` run (tools/notation-verify) means, by its exit status (the
 * tool's own, shaped as cosign's), never by its wording; stderr's last `Error:` line is only quoted.
 *
 * - 0: verified; stdout is one JSON line, `{"signedBy": "<the signing certificate's subject>"}`.
 * - 10: no notation signature on the artifact.
 * - 12: signatures, none that the trust policy and certificates accept.
 * - 3: the trust policy or certificates cannot be used (invalid, no statement for this artifact,
 *   a `skip` level): a failure of the key Secret.
 * - otherwise (11, a time-out, not started): could not check: not a verdict, tried again.
 */

const DETAIL_CHARS = 300;

export function notationOutcome(run: { exitCode: number | undefined; timedOut: boolean; stdout: string; stderr: string; timeoutMs: number }): Verdict {
  if (run.timedOut) return { ok: false, kind: 'unreachable', message: `notation could not check it: it did not finish within ${Math.round(run.timeoutMs / 1000)}s` };
  if (run.exitCode === undefined) return { ok: false, kind: 'unreachable', message: 'notation could not check it: notation-verify could not be started (NOTATION_VERIFY_BIN names it)' };
  const detail = lastErrorLine(run.stderr, DETAIL_CHARS);
  switch (run.exitCode) {
    case 0: {
      const signedBy = signerOf(run.stdout);
      return signedBy ? { ok: true, signedBy } : { ok: false, kind: 'untrusted', message: 'notation: it named no signing certificate' };
    }
    case 10:
      return { ok: false, kind: 'unsigned', message: 'notation: no signature' };
    case 12:
      return { ok: false, kind: 'untrusted', message: `notation: ${detail || 'no signature the trust policy accepts'}` };
    case 3:
      return { ok: false, kind: 'key-secret', message: `notation: ${detail}` };
    default:
      return { ok: false, kind: 'unreachable', message: `notation could not check it: ${detail || `notation-verify exited with ${run.exitCode}`}` };
  }
}

function signerOf(stdout: string): string | undefined {
  try {
    const parsed = JSON.parse(stdout.trim()) as { signedBy?: unknown };
    return typeof parsed.signedBy === 'string' && parsed.signedBy ? parsed.signedBy : undefined;
  } catch {
    return undefined;
  }
}
