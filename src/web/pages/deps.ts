import type { SlackThreadOf } from '../../core/links/slack-thread.js';
import type { ObjectReads } from '../../core/kube/object-reader.js';
import type { ClusterDeps, FleetRouting } from '../../session/flow/fleet-routing.js';
import type { SharedReleaseWatch } from '../live/release-watch.js';
import type { TimelineWatches } from '../live/watched-timeline.js';
import type { ChangeSignal } from '../live/remote-follower.js';
import type { ReleaseEventRecord } from '../views/timeline.js';

/** What the release pages read, handed in by the server (src/cli wires it, as for the bot). */
export interface PagesDeps {
  /** The server's own cluster, through its kubeconfig: the same parts a `/release` session gets (session/flow/fleet-routing.ts). */
  own: Pick<ClusterDeps, 'api' | 'freezes' | 'storage' | 'proposals'>;
  /** A fleet: the fleet page reads every cluster the way `list --cluster all` does; without it, the own cluster alone. */
  fleet?: FleetRouting;
  /** The one shared watch of the own cluster's HelmReleases and Freezes: pages read from it, live streams hear from it. */
  watch: SharedReleaseWatch;
  /** The own cluster's Events on a release (the audit of people's actions), read until `timeline` has listed; absent: the timeline has helm's revisions and status only. */
  events?: (namespace: string, name: string) => Promise<ReleaseEventRecord[]>;
  /** A fleet's other clusters' change signal (live/notify-signal.ts); absent: their sections are read when the page loads, not live. */
  remoteChanges?: (cluster: string) => ChangeSignal;
  /** The shared watches of helm's records and the Events about releases: the own cluster's timelines from memory, and live. */
  timeline?: TimelineWatches;
  /** Reads the own cluster's objects a release applied, for their health (another cluster's are read by its agent: the `objects` question). */
  objects?: ObjectReads;
  now?: () => Date;
  /** The Approve/Reject forms of a proposal (a mustache template; the release session's actions). */
  proposalActions?: string;
  /** A release's latest Slack thread, from notify's message references (core/links/slack-thread.ts; another cluster's from the fleet notify's map); absent: no link. */
  slackThread?: SlackThreadOf;
  /** At most this many objects are read for one release page (default 40): the rest are listed unread. */
  objectReadLimit?: number;
}
