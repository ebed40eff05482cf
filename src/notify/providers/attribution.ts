import type { Requester } from '../../core/requests/requester-ledger.js';
import { imagesLine } from '../../core/release/deployed-images.js';
import { slackUserOf, userMention } from '../../core/slack/mention.js';
import type { ReleaseNotification } from '../contract.js';

/**
 * Who or what started an operation and what it deployed, as every medium says it. Pure. Slack
 * mentions the person (`<@U0123>`); the others name them (`@alice`). A moved Git chart is named
 * by its revision instead.
 */

/** `@alice` (a handle), or the id when there is none (`slack:U0123`, `kube:alice` → `@alice`). */
export function requesterHandle(requester: Requester): string {
  if (requester.name) return `@${requester.name}`;
  if (requester.id.startsWith('kube:')) return `@${requester.id.slice('kube:'.length)}`;
  return requester.id;
}

/** "by @alice", "by <@U0123>" (slack), "from Git 1.2.0+abc1234", or undefined when nobody asked. */
export function attributionLine(
  n: Pick<ReleaseNotification, 'requester' | 'gitRevision'>,
  medium: 'slack' | 'plain',
  /** Escapes what came from outside (a handle, a revision) for the medium; a mention is ours. */
  escape: (text: string) => string = (text) => text,
): string | undefined {
  if (n.requester) {
    const user = slackUserOf(n.requester.id);
    const mention = medium === 'slack' && user ? userMention(user) : undefined;
    return `by ${mention ?? escape(requesterHandle(n.requester))}`;
  }
  return n.gitRevision ? `from Git ${escape(n.gitRevision)}` : undefined;
}

/** "nginx:1.25, redis:7 +3 more", or undefined when none is known. */
export function imagesText(n: Pick<ReleaseNotification, 'images' | 'moreImages'>, shown = 5): string | undefined {
  return n.images?.length ? imagesLine(n.images, n.moreImages ?? 0, shown) : undefined;
}

/**
 * "proposed by helmcrew, approved by <@U1>, <@U2>" (slack) or "… approved by slack:U1, slack:U2":
 * who proposed and approved the changes an upgrade brings (issue 35); undefined when it brings none.
 */
export function approvalLine(
  n: Pick<ReleaseNotification, 'proposedBy' | 'approvers'>,
  medium: 'slack' | 'plain',
  escape: (text: string) => string = (text) => text,
): string | undefined {
  if (!n.proposedBy && !n.approvers?.length) return undefined;
  const person = (actor: string) => {
    const user = slackUserOf(actor);
    return (medium === 'slack' && user ? userMention(user) : undefined) ?? escape(actor);
  };
  const proposed = `proposed by ${n.proposedBy ? n.proposedBy.split(', ').map(person).join(', ') : 'helmcrew'}`;
  return n.approvers?.length ? `${proposed}, approved by ${n.approvers.map(person).join(', ')}` : `${proposed}, no approval asked`;
}
