/** The release page's address lives in the core (notify and the bot link to it too). */
export { OWN_CLUSTER_SEGMENT, clusterOfSegment, releaseUrl } from '../core/links/release-url.js';
