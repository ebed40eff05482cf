import { Type, type Static } from '@sinclair/typebox';
import { Condition } from './helmrelease-status.js';
import { celRules, DNS_LABEL_PATTERN, Duration } from './schema-helpers.js';
import { API_GROUP, API_VERSION, FREEZE_KIND } from './vocabulary.js';

/**
 * The Freeze API: while a Freeze is active, the controller runs no helm action (install, upgrade,
 * rollback, uninstall, remediation, test) for the HelmReleases in its scope. It is its own
 * cluster-scoped object, so a GitOps sync of a HelmRelease cannot undo it, and ending it (deleting
 * it, `until` passing, a window closing) lets every held release go on at once.
 */

const CHART_NAME_PATTERN = '^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$';
const Names = (pattern: string, description: string, maxLength: number) => Type.Array(Type.String({ pattern, maxLength }), { maxItems: 64, description });

export const FreezeScope = Type.Object(
  {
    all: Type.Optional(Type.Boolean({ description: 'Every HelmRelease in the cluster. Set alone.' })),
    teams: Type.Optional(Names(DNS_LABEL_PATTERN, 'Teams: the releases their subscriptions name (namespaces, charts, releases, selector).', 253)),
    namespaces: Type.Optional(Names(DNS_LABEL_PATTERN, 'HelmRelease namespaces (or target namespaces).', 63)),
    charts: Type.Optional(Names(CHART_NAME_PATTERN, 'Chart names.', 250)),
  },
  {
    description: 'What the freeze holds: `all`, or releases matching every field given (a field lists alternatives), like a Team subscription.',
    ...celRules(
      {
        rule: '(has(self.all) && self.all) != (has(self.teams) || has(self.namespaces) || has(self.charts))',
        message: 'set either all: true or at least one of teams, namespaces, charts (not both)',
      },
      { rule: '!has(self.all) || self.all', message: 'all: false means nothing; leave it out and name teams, namespaces or charts' },
    ),
  },
);

/** IANA names: letters, digits, _ + - and /; validated for real by the controller (Intl). */
const TIME_ZONE_PATTERN = '^[A-Za-z][A-Za-z0-9_+\\-]*(/[A-Za-z0-9_+\\-]+)*$';

export const FreezeWindow = Type.Object(
  {
    schedule: Type.String({
      minLength: 9,
      maxLength: 100,
      description: 'Cron expression of the window starts (5 fields: minute hour day month weekday; or 6, seconds first).',
    }),
    duration: Duration({
      description: 'How long each window lasts (Go duration: 30m, 62h).',
      ...celRules({ rule: "duration(self) >= duration('10s') && duration(self) <= duration('744h')", message: 'must be between 10s and 744h' }),
    }),
    timeZone: Type.Optional(
      Type.String({ pattern: TIME_ZONE_PATTERN, maxLength: 64, description: 'IANA time zone of the schedule (Europe/Berlin). Default: UTC.' }),
    ),
  },
  { description: 'A recurring window: the freeze holds only while one is open.' },
);

export const FreezeSpec = Type.Object(
  {
    scope: FreezeScope,
    reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why: shown on every release it holds.' }),
    setBy: Type.Optional(Type.String({ maxLength: 200, description: 'Who set it: slack:<user id> or kube:<user>.' })),
    channel: Type.Optional(Type.String({ maxLength: 100, description: 'The Slack channel it was set from.' })),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'When it ends by itself (RFC 3339). Default: when deleted.' })),
    windows: Type.Optional(Type.Array(FreezeWindow, { maxItems: 16, description: 'Hold only inside these recurring windows (and before until).' })),
  },
  { description: 'A freeze: what it holds, why, who set it, and for how long.' },
);

/** Most releases a Freeze's status names; the rest are counted (`more`). */
export const MAX_HELD_LISTED = 50;

export const FreezeHeld = Type.Object(
  {
    since: Type.String({ maxLength: 40, description: 'The start of the period these were held in: the open window, or when the freeze was created.' }),
    releases: Type.Array(
      Type.Object({
        release: Type.String({ maxLength: 320, description: '<namespace>/<name> of the HelmRelease.' }),
        action: Type.String({ maxLength: 40, description: 'The helm action held: install, upgrade, test, rollback, uninstall, remediation.' }),
        at: Type.String({ maxLength: 40, description: 'When it was first held in this period.' }),
      }),
      { maxItems: MAX_HELD_LISTED },
    ),
    more: Type.Optional(Type.Integer({ minimum: 0, description: 'Releases held beyond those listed.' })),
  },
  { description: 'What this freeze held in its current (or last) period, recorded by the controller as it held them.' },
);

export const FreezeStatus = Type.Object({
  conditions: Type.Optional(Type.Array(Condition, { maxItems: 8 })),
  held: Type.Optional(FreezeHeld),
});

export type FreezeScope = Static<typeof FreezeScope>;
export type FreezeWindow = Static<typeof FreezeWindow>;
export type FreezeSpec = Static<typeof FreezeSpec>;
export type FreezeStatus = Static<typeof FreezeStatus>;
export type FreezeHeld = Static<typeof FreezeHeld>;

export interface Freeze {
  apiVersion: `${typeof API_GROUP}/${typeof API_VERSION}`;
  kind: typeof FREEZE_KIND;
  metadata: {
    name: string;
    uid?: string;
    resourceVersion?: string;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec: FreezeSpec;
  status?: FreezeStatus;
}
