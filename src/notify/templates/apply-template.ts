import type { ReleaseNotification } from '../contract.js';
import { statusLink } from '../providers/msteams/card.js';
import { renderTemplate, templateFields } from './message-template.js';

export interface Prepared {
  notification: ReleaseNotification;
  /** Set when the channel's template failed: the default message is sent, and the Team is warned. */
  templateError?: string;
}

/**
 * The notification as one channel tells it: stamped with the cluster's name, its message
 * replaced by the channel's template when it has one that renders. Pure.
 */
export function prepareForChannel(n: ReleaseNotification, template: string | undefined, cluster?: string, statusUrlTemplate?: string): Prepared {
  // A fleet notify's router already stamped the cluster the event came from; a single notify stamps its own.
  const where = cluster ?? n.cluster;
  const stamped = where ? { ...n, cluster: where } : n;
  if (!template) return { notification: stamped };
  const rendered = renderTemplate(template, templateFields(n, where, statusLink(statusUrlTemplate, n.release)));
  if (!rendered.ok) return { notification: stamped, templateError: `template not used (${rendered.error}); the default message is sent` };
  return { notification: { ...stamped, message: rendered.text } };
}
