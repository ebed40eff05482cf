import Mustache from 'mustache';
import type { ReleaseNotification } from '../contract.js';
import { attributionLine, imagesText } from '../providers/attribution.js';
import { titleOf } from '../providers/slack/render.js';

/** The fields a channel's template may use (docs/api/team.md "Message templates"). */
export interface TemplateFields {
  release: string;
  namespace: string;
  chart: string;
  fromVersion: string;
  toVersion: string;
  revision: string;
  /** "Upgrade failed", "Installed"…: the event's title. */
  outcome: string;
  event: string;
  /** Why it happened ("spec change (generation 4)"). */
  reason: string;
  message: string;
  /** "by @alice" (chat or terminal), "from Git 1.2.0+abc1234", or empty. */
  startedBy: string;
  /** The images deployed: "nginx:1.25, redis:7 +3 more", or empty. */
  images: string;
  cluster: string;
  links: { status: string };
}

export function templateFields(n: ReleaseNotification, cluster = '', statusLink = ''): TemplateFields {
  return {
    release: n.release.name,
    namespace: n.release.namespace,
    chart: n.release.chart,
    fromVersion: n.fromVersion ?? '',
    toVersion: n.toVersion ?? '',
    revision: n.revision === undefined ? '' : String(n.revision),
    outcome: titleOf(n.event),
    event: n.event,
    reason: n.cause,
    message: n.message,
    startedBy: attributionLine(n, 'plain') ?? '',
    images: imagesText(n) ?? '',
    cluster,
    links: { status: statusLink },
  };
}

export type Rendered = { ok: true; text: string } | { ok: false; error: string };

/**
 * A channel's message template rendered with mustache (logic-less: sections and variables, no
 * code), as plain text: each provider escapes it for its own format. Pure. A template that does
 * not parse, or renders to nothing, is an error; the caller falls back to the default message.
 */
export function renderTemplate(template: string, fields: TemplateFields): Rendered {
  try {
    const text = Mustache.render(template, fields, {}, { escape: (value: unknown) => String(value) }).trim();
    return text ? { ok: true, text } : { ok: false, error: 'the template renders to an empty message' };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
