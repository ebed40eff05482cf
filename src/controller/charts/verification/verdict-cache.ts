import type { Verdict, VerifyRequest } from './artifact-verify.js';
import { verdictCacheKey } from './cosign-keys.js';

/** Verdicts kept: one per artifact digest, settings and key Secret version. */
const MAX_VERDICTS = 2048;
/** A refusal is looked at again after this unless the request says (its interval): a signature pushed later is then found. */
const REFUSAL_TTL_MS = 10 * 60_000;

/**
 * The verdicts of one OCI signature tool (cosign, notation), kept by verdictCacheKey: a verified
 * digest at rest runs nothing and asks the registry nothing; a refusal is asked again after the
 * release's interval (a signature pushed after its artifact, as `helm push` then sign do); an
 * unreachable registry is not a verdict and is tried again at the next pass. Releases asking for
 * the same artifact at once (N releases of one chart, at start-up) share one run.
 */
export class VerdictCache {
  private readonly verdicts = new Map<string, { verdict: Verdict; until: number }>();
  private readonly running = new Map<string, Promise<Verdict>>();

  constructor(private readonly now: () => number = Date.now) {}

  async verdictOf(request: VerifyRequest, run: () => Promise<Verdict>): Promise<Verdict> {
    const key = verdictCacheKey(request);
    const now = this.now();
    const cached = this.verdicts.get(key);
    if (cached && cached.until > now) return cached.verdict;
    this.verdicts.delete(key);
    const already = this.running.get(key);
    if (already) return already;
    const pending = run();
    this.running.set(key, pending);
    let verdict: Verdict;
    try {
      verdict = await pending;
    } finally {
      this.running.delete(key);
    }
    if (verdict.ok || verdict.kind !== 'unreachable') {
      if (this.verdicts.size >= MAX_VERDICTS) this.verdicts.delete(this.verdicts.keys().next().value!);
      // A signature that verified stays verified for this digest and key Secret version.
      this.verdicts.set(key, { verdict, until: verdict.ok ? Number.POSITIVE_INFINITY : now + (request.refusalTtlMs ?? REFUSAL_TTL_MS) });
    }
    return verdict;
  }
}
