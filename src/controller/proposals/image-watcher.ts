/**
 * The tag watcher (issue 35), on the leader: every tick, each image repository whose interval is
 * due is listed once per set of credentials, however many releases watch it (and each tag's digest
 * asked once, when a release keeps it); each release's image update is then decided
 * (image-change.ts) and its proposal opened in Redis. The same tick enqueues the releases whose
 * proposals were approved (the pass applies them), expires the open ones past their time, and
 * tells, with their plan diff, the proposals opened unannounced (promotions, chart versions) as it tells its own.
 */
import type { HelmRelease, ImageUpdate } from '../../api/helmrelease.js';
import { IMAGE_UPDATE_DEFAULTS } from '../../api/image-updates.js';
import { parseDuration } from '../../api/duration.js';
import { ReleaseEvent } from '../../api/vocabulary.js';
import type { ReleaseEventSink } from '../../core/events/release-event-sink.js';
import type { Logger } from '../../core/log.js';
import type { Proposal } from '../../core/proposals/proposal.js';
import type { ChartAccess } from '../charts/chart-access.js';
import { chooseTag } from '../../core/proposals/tag-policy.js';
import { tagPolicyOf } from '../reconcile/desired/image-updates.js';
import { decideImageChange } from './image-change.js';
import { announceOpened } from './announce-opened.js';
import { gitOpsOwner } from '../../core/release/gitops-owner.js';
import type { ImageSignature, ImageSignatureCheck } from './image-verify.js';
import { imageRef, type ProposalBook, type TagLister } from './image-watcher-ports.js';

export type { ProposalBook, TagLister } from './image-watcher-ports.js';
export { imageRef } from './image-watcher-ports.js';

export interface ImageWatcherOptions {
  cluster: string;
  releases: () => HelmRelease[];
  registry: TagLister;
  /** The credentials of an image update, read as the release's identity (throws with a message naming the Secret). */
  accessFor: (release: HelmRelease, update: ImageUpdate) => Promise<ChartAccess>;
  /** imageUpdates[].verify: who signed a tag's image (image-verify.ts); none: such an update proposes nothing. */
  signatureOf?: ImageSignatureCheck;
  store: ProposalBook;
  events: ReleaseEventSink;
  enqueue: (key: string, reason: string) => void;
  log: Logger;
  tickMs: number;
  /** How long closed proposals are kept after they close (HELMCREW_PROPOSALS_RETENTION_HOURS). */
  retentionMs: number;
  /** The plan diff of a proposal that waits for approvals, for its message (proposal-diff.ts; never throws). */
  diffFor?: (release: HelmRelease, proposal: Proposal) => Promise<string[]>;
  now?: () => number;
}

interface Watching {
  release: HelmRelease;
  update: ImageUpdate;
  access: ChartAccess;
}

/** An image update's credentials as last read: the release's version they were read for, and when. */
interface AccessRead {
  version: string;
  at: number;
  access: ChartAccess;
}

const accessKey = (release: HelmRelease, index: number) => `${release.metadata.namespace}/${release.metadata.name}#${index}`;

export class ImageWatcher {
  /** When each repository + credentials was last listed. */
  private readonly listedAt = new Map<string, number>();
  /**
   * Each release's image credentials, read once per interval (or when the release changes), not on
   * every tick: a Secret GET per release every tick was most of what watching cost at rest.
   */
  private accessRead = new Map<string, AccessRead>();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  /** Registry requests made (tag lists and digests), for the bench and the tests. */
  requests = 0;

  constructor(private readonly opts: ImageWatcherOptions) {}

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  start(): void {
    if (this.timer) return;
    const loop = () => {
      this.running = this.tick()
        .catch((error: unknown) => this.opts.log.warn({ error: (error as Error).message }, 'image watcher: tick failed'))
        .finally(() => {
          if (this.timer) this.timer = setTimeout(loop, this.opts.tickMs);
        });
    };
    this.timer = setTimeout(loop, 0);
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One round: due repositories listed and decided, approved proposals enqueued, overdue ones expired. */
  async tick(): Promise<void> {
    const releases = this.opts.releases();
    await this.watchTags(releases);
    await this.followProposals(releases);
  }

  private async watchTags(releases: HelmRelease[]): Promise<void> {
    const now = this.now();
    const groups = new Map<string, Watching[]>();
    const reads = new Map<string, AccessRead>();
    for (const release of releases) {
      if (release.metadata.deletionTimestamp || release.spec.suspend) continue;
      for (const [index, update] of (release.spec.imageUpdates ?? []).entries()) {
        const read = await this.readAccess(release, update, index, now);
        if (!read) continue;
        reads.set(accessKey(release, index), read);
        const { access } = read;
        const key = `${update.repository}|${access.insecure ? 'plain' : 'tls'}|${access.cacheKey}`;
        groups.set(key, [...(groups.get(key) ?? []), { release, update, access }]);
      }
    }
    // Releases gone (or without that update any more) are forgotten.
    this.accessRead = reads;
    for (const [key, members] of groups) {
      const interval = Math.min(...members.map((m) => parseDuration(m.update.interval ?? IMAGE_UPDATE_DEFAULTS.interval)));
      const last = this.listedAt.get(key);
      if (last !== undefined && now < last + interval) continue;
      this.listedAt.set(key, now);
      await this.listAndDecide(members, now);
    }
  }

  /**
   * The update's credentials: as read before while the release is the same version and the read is
   * younger than the update's interval (a rotated Secret is seen within one interval), else read
   * again. A read that failed is tried again on the next tick, as before (undefined: warned).
   */
  private async readAccess(release: HelmRelease, update: ImageUpdate, index: number, now: number): Promise<AccessRead | undefined> {
    const version = `${release.metadata.uid ?? ''}/${release.metadata.resourceVersion ?? ''}`;
    const before = this.accessRead.get(accessKey(release, index));
    const interval = parseDuration(update.interval ?? IMAGE_UPDATE_DEFAULTS.interval);
    if (before && before.version === version && now < before.at + interval) return before;
    try {
      return { version, at: now, access: await this.opts.accessFor(release, update) };
    } catch (error) {
      this.warn(release, update, (error as Error).message);
      return undefined;
    }
  }

  private async listAndDecide(members: Watching[], now: number): Promise<void> {
    const { update, access } = members[0]!;
    const ref = imageRef(update.repository, access.insecure);
    let tags: string[];
    try {
      this.requests++;
      tags = await this.opts.registry.tags(update.repository, ref, access);
    } catch (error) {
      for (const m of members) this.warn(m.release, m.update, `listing the tags of ${update.repository} failed: ${(error as Error).message}`);
      return;
    }
    // Digests asked once per tag, for the releases that keep one.
    const digests = new Map<string, string | undefined>();
    const digestOf = (tag: string) => digests.get(tag);
    for (const member of members) {
      const choice = chooseTag(tagPolicyOf(member.update.policy), tags);
      const tag = choice.kind === 'chosen' ? choice.tag : undefined;
      // A verified image is checked by its digest: asked for it too.
      if ((member.update.digestPath || member.update.verify) && tag && !digests.has(tag)) {
        try {
          this.requests++;
          digests.set(tag, await this.opts.registry.digest(update.repository, ref, access, tag));
        } catch (error) {
          digests.set(tag, undefined);
          this.warn(member.release, member.update, `the digest of ${update.repository}:${tag} could not be read: ${(error as Error).message}`);
        }
      }
      const signature = tag && member.update.verify ? await this.signature(member, tag, digests.get(tag)) : undefined;
      const signatureOf = (t: string) => (t === tag ? signature : undefined);
      const change = decideImageChange(this.opts.cluster, member.release, member.update, { tags, digestOf, signatureOf }, now);
      if (change.kind === 'none' && signature && signature.kind !== 'signed' && !member.update.allowUnsigned)
        this.warn(member.release, member.update, change.why);
      if (change.kind === 'propose') await this.open(member.release, change.proposal);
    }
  }

  /** The verifier keeps its verdict per digest: a tag at rest runs no cosign. */
  private async signature(member: Watching, tag: string, digest: string | undefined): Promise<ImageSignature> {
    if (!digest) return { kind: 'unknown', why: `the digest of ${member.update.repository}:${tag} could not be read` };
    if (!this.opts.signatureOf) return { kind: 'refused', why: 'signatures are not checked by this controller' };
    try {
      return await this.opts.signatureOf(member.release, member.update, member.access, digest);
    } catch (error) {
      return { kind: 'unknown', why: (error as Error).message };
    }
  }

  private async open(release: HelmRelease, proposal: Proposal): Promise<void> {
    const diffFor = this.opts.diffFor;
    const owner = gitOpsOwner(release);
    const opened = await announceOpened(await this.opts.store.open(proposal), release, {
      events: this.opts.events,
      log: this.opts.log,
      action: 'image-update',
      ...(diffFor || owner
        ? {
            complete: async (p: Proposal) => {
              const diff = diffFor ? await diffFor(release, p) : undefined;
              return (await this.opts.store.update(p.id, (current) => withOwnerAndDiff(current, owner, diff))) ?? p;
            },
          }
        : {}),
    });
    if (opened?.state.phase === 'approved') this.opts.enqueue(`${release.metadata.namespace}/${release.metadata.name}`, 'image update');
  }

  /** Approved proposals: their release gets a pass (applied there, or held by a freeze); overdue open ones expire; old closed ones go. */
  private async followProposals(releases: HelmRelease[]): Promise<void> {
    const now = this.now();
    const byKey = new Map(releases.map((r) => [`${r.metadata.namespace}/${r.metadata.name}`, r]));
    const proposals = (await this.opts.store.list()).filter((p) => p.release.cluster === this.opts.cluster);
    // From the list just read: nothing more is asked of Redis at rest.
    const pruned = await this.opts.store.prune(now - this.opts.retentionMs, proposals);
    if (pruned > 0) this.opts.log.info({ action: 'proposals-pruned', count: pruned }, `removed ${pruned} closed proposal record(s) past their retention`);
    for (const proposal of proposals) {
      const key = `${proposal.release.namespace}/${proposal.release.name}`;
      if (proposal.unannounced) await this.announce(proposal, byKey.get(key));
      if (proposal.state.phase === 'approved') this.opts.enqueue(key, 'proposal approved');
      if (proposal.state.phase !== 'open' || now < proposal.facts.expiresAt) continue;
      const expired = await this.opts.store.update(proposal.id, (p) =>
        p.state.phase === 'open' && now >= p.facts.expiresAt ? { ...p, state: { phase: 'expired', approvers: p.state.approvers } } : undefined,
      );
      const release = byKey.get(key);
      if (!expired || !release) continue;
      this.opts.log.info({ release: key, action: 'proposal-expired', proposalId: proposal.id }, `${proposal.summary}: expired`);
      await this.opts.events.record(release, ReleaseEvent.ProposalExpired, `${proposal.summary}: expired without enough approvals; nothing was changed`, {
        action: 'proposal',
        proposalId: proposal.id,
        approvers: expired.state.approvers,
      });
    }
  }

  /**
   * A proposal opened unannounced — by the bot (a promotion) or by a pass (a chart version: a pass
   * makes no preview, which would hold a helm slot) — gets its plan diff here, and its
   * ProposalOpened (and the ProposalSuperseded of the one it replaced) recorded on the release, once — the record's flag is dropped by
   * compare-and-set first, so a second leader or tick tells nothing again.
   */
  private async announce(proposal: Proposal, release: HelmRelease | undefined): Promise<void> {
    if (!release) return;
    // The plan diff goes into the record with the flag's drop, in one write, before the event
    // (notify renders the message from the record). Made from the list just read: only a second
    // leader racing this one could make it twice, and only one of them tells.
    const diff = proposal.state.phase === 'open' && this.opts.diffFor ? await this.opts.diffFor(release, proposal) : undefined;
    const told = await this.opts.store.update(proposal.id, (p) => {
      if (!p.unannounced) return undefined;
      const { unannounced: _told, ...rest } = p;
      return rest.state.phase === 'open' ? withOwnerAndDiff(rest, gitOpsOwner(release), diff) : rest;
    });
    if (!told) return;
    const key = `${release.metadata.namespace}/${release.metadata.name}`;
    const by = told.facts.proposedBy ?? 'helmcrew';
    // The controller's own proposals (a chart version) say nothing of who proposed them, as announceOpened does not.
    const proposer = told.facts.proposedBy ? ` (proposed by ${by})` : '';
    if (told.supersedes) {
      await this.opts.events.record(
        release,
        ReleaseEvent.ProposalSuperseded,
        `proposal ${told.supersedes}: replaced by a newer proposal (${told.id}: ${told.summary})`,
        {
          action: 'proposal',
          proposalId: told.supersedes,
        },
      );
    }
    if (told.state.phase !== 'open') return;
    this.opts.log.info({ release: key, action: 'proposal-opened', proposalId: told.id, proposedBy: by }, `proposed ${told.summary}`);
    await this.opts.events.record(
      release,
      ReleaseEvent.ProposalOpened,
      `${told.summary}${proposer}: waiting for ${told.facts.required} approval${told.facts.required === 1 ? '' : 's'} until ${new Date(told.facts.expiresAt).toISOString()}`,
      { action: 'proposal', proposalId: told.id, proposedBy: by },
    );
  }

  private warn(release: HelmRelease, update: ImageUpdate, message: string): void {
    this.opts.log.warn({ release: `${release.metadata.namespace}/${release.metadata.name}`, repository: update.repository }, `image update: ${message}`);
  }
}

/** The record with what its message shows besides the change: the GitOps tool owning the spec, the plan diff. */
function withOwnerAndDiff(proposal: Proposal, ownedBy: string | undefined, diff: string[] | undefined): Proposal {
  return { ...proposal, ...(ownedBy ? { ownedBy } : {}), ...(diff ? { diff } : {}) };
}
