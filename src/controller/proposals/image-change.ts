/**
 * What a new tag means for one release's image update (issue 35): nothing (the wanted tag, and its
 * digest, are in effect), or a proposal — open for votes when spec.approval asks for approvals,
 * approved at once when it does not (the pass applies approved proposals either way). Pure: the
 * release, the registry's answer and the clock in, the proposal out.
 */
import type { HelmRelease, ImageUpdate } from '../../api/helmrelease.js';
import { IMAGE_UPDATE_DEFAULTS } from '../../api/image-updates.js';
import { parseDuration } from '../../api/duration.js';
import { chooseTag } from '../../core/proposals/tag-policy.js';
import { proposalId, type Proposal, type ProposedValue } from '../../core/proposals/proposal.js';
import { tagPolicyOf } from '../reconcile/desired/image-updates.js';
import { valueAt } from '../reconcile/desired/approved-overrides.js';
import { parseTargetPath } from '../reconcile/desired/target-path.js';
import type { ImageSignature } from './image-verify.js';

export type ImageChange = { kind: 'none'; why: string } | { kind: 'propose'; proposal: Proposal };

/** What the registry said about the update's repository: its tags, and the digest of each tag asked for. */
export interface RegistryAnswer {
  tags: readonly string[];
  digestOf?: (tag: string) => string | undefined;
  /** imageUpdates[].verify: who signed the tag's image (image-verify.ts); undefined: not asked yet. */
  signatureOf?: (tag: string) => ImageSignature | undefined;
}

/** The subject a newer proposal supersedes an older one on: the release and the image repository. */
export function imageSubject(cluster: string, release: HelmRelease, repository: string): string {
  return `${cluster}/${release.metadata.namespace}/${release.metadata.name} image ${repository}`;
}

/** The approvals a change of this release needs (0: it applies on its own). */
export function requiredApprovals(release: HelmRelease): number {
  return release.spec.approval?.required ?? 0;
}

/** Who may approve a change of this release, how many, and until when (spec.approval). */
export function approvalFacts(release: HelmRelease, now: number): Proposal['facts'] {
  const expireAfter = parseDuration(release.spec.approval?.expireAfter ?? IMAGE_UPDATE_DEFAULTS.expireAfter);
  // spec.approval.teams narrows who may vote (the bot's Team rules read it from here).
  return {
    required: requiredApprovals(release),
    expiresAt: now + expireAfter,
    ...(release.spec.approval?.teams?.length ? { teams: [...release.spec.approval.teams] } : {}),
  };
}

export function decideImageChange(cluster: string, release: HelmRelease, update: ImageUpdate, answer: RegistryAnswer, now: number): ImageChange {
  const choice = chooseTag(tagPolicyOf(update.policy), answer.tags);
  if (choice.kind !== 'chosen') return { kind: 'none', why: choice.why };
  const signature = signatureNote(update, choice.tag, answer);
  if (signature.kind === 'none') return signature;
  const values: ProposedValue[] = [];
  const currentTag = inEffect(release, update.valuesPath);
  if (currentTag !== choice.tag) values.push({ valuesPath: update.valuesPath, ...(currentTag !== undefined ? { from: currentTag } : {}), to: choice.tag });
  if (update.digestPath) {
    const digest = answer.digestOf?.(choice.tag);
    if (digest === undefined) return { kind: 'none', why: `the digest of ${update.repository}:${choice.tag} is not known yet` };
    const currentDigest = inEffect(release, update.digestPath);
    // A tag moved to a new digest is a change too (the tag itself may stay).
    if (currentDigest !== digest) values.push({ valuesPath: update.digestPath, ...(currentDigest !== undefined ? { from: currentDigest } : {}), to: digest });
  }
  if (values.length === 0) return { kind: 'none', why: `${update.repository}:${choice.tag} is in effect` };
  const target = { cluster, namespace: release.metadata.namespace, name: release.metadata.name };
  const subject = imageSubject(cluster, release, update.repository);
  const required = requiredApprovals(release);
  const tagChange = values.find((v) => v.valuesPath === update.valuesPath);
  const summary = tagChange
    ? `image ${update.repository} ${tagChange.from ?? '(chart default)'} → ${tagChange.to}`
    : `image ${update.repository}:${choice.tag} moved to ${values[0]!.to.slice(0, 19)}`;
  const signed = signature.note ? `${summary} (${signature.note})` : summary;
  return {
    kind: 'propose',
    proposal: {
      id: proposalId(target, subject, values),
      kind: 'image',
      release: target,
      values,
      summary: signed,
      subject,
      facts: approvalFacts(release, now),
      // Nobody is asked: the change is approved as it is opened, and applied by the next pass.
      state: required > 0 ? { phase: 'open', approvers: [] } : { phase: 'approved', approvers: [] },
      createdAt: now,
    },
  };
}

/**
 * imageUpdates[].verify: a tag whose image is not signed by an accepted key is not proposed, unless
 * allowUnsigned, which proposes it marked unsigned; a signed one names its signer. Without verify
 * nothing is said (and nothing was asked).
 */
export function signatureNote(update: ImageUpdate, tag: string, answer: RegistryAnswer): { kind: 'none'; why: string } | { kind: 'go'; note?: string } {
  if (!update.verify) return { kind: 'go' };
  const signature = answer.signatureOf?.(tag);
  if (!signature) return { kind: 'none', why: `the signature of ${update.repository}:${tag} is not verified yet` };
  switch (signature.kind) {
    case 'signed':
      return { kind: 'go', note: `signed by ${signature.signedBy}` };
    case 'unknown':
      return { kind: 'none', why: `the signature of ${update.repository}:${tag} could not be checked: ${signature.why}` };
    case 'refused':
      if (update.allowUnsigned) return { kind: 'go', note: `UNSIGNED: ${signature.why}` };
      return { kind: 'none', why: `${update.repository}:${tag} is not proposed: ${signature.why}` };
  }
}

/**
 * The value in effect at a path, as far as the release's object tells: an approved override, else
 * spec.values (values from ConfigMaps, Secrets or the chart are not read here; a change that is in
 * effect already makes an override equal to what was there, which changes nothing).
 */
function inEffect(release: HelmRelease, valuesPath: string): string | undefined {
  const override = release.status?.approvedOverrides?.find((entry) => entry.valuesPath === valuesPath);
  if (override) return override.value;
  try {
    const value = valueAt(release.spec.values ?? {}, parseTargetPath(valuesPath));
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
  } catch {
    return undefined;
  }
}
