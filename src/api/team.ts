import { Type, type Static } from '@sinclair/typebox';
import { Condition } from './helmrelease-status.js';
import { celRules, DNS_LABEL_PATTERN, StringEnum } from './schema-helpers.js';
import { TEAM_VERBS } from './release-verbs.js';
import { API_GROUP, API_VERSION, ReleaseEvent, TEAM_KIND } from './vocabulary.js';

/**
 * The Team API: who a team is (Slack members), where it is told (channels), what it hears
 * (subscriptions) and what it may do from chat (permissions). One TypeBox source gives the
 * TypeScript types and the CRD schema (src/api/crd.ts). Cluster-scoped: a team spans namespaces.
 */

const SLACK_USER_PATTERN = '^[UW][A-Z0-9]+$';
const SLACK_USER_GROUP_PATTERN = '^S[A-Z0-9]+$';
/** One `@`, something on each side, no spaces: what a provider's `email` claim holds, not RFC 5322. */
const EMAIL_PATTERN = '^[^@\\s]+@[^@\\s]+$';
/** An OIDC provider's group name, as its `groups` claim spells it (Keycloak paths, Okta names, Dex `org:team`). */
const GROUP_PATTERN = '^\\S(.*\\S)?$';
/** A Slack channel id (C…, G…) or a #name. */
const SLACK_CHANNEL_PATTERN = '^([CG][A-Z0-9]+|#[a-z0-9][-_a-z0-9]{0,79})$';
/** A release as `name` (any namespace) or `namespace/name`. */
const RELEASE_REF_PATTERN = '^([a-z0-9]([-a-z0-9]*[a-z0-9])?/)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?$';
const CHART_NAME_PATTERN = '^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$';

const Names = (pattern: string, description: string, maxLength = 253) => Type.Array(Type.String({ pattern, maxLength }), { maxItems: 256, description });

/** A cluster name (a DNS label) with `*` allowed anywhere, matched by core/fleet/cluster-match.ts. */
export const CLUSTER_GLOB_PATTERN = '^[a-z0-9*]([-a-z0-9*]{0,61}[a-z0-9*])?$';

/** A fleet's clusters by name or glob; absent: every cluster. */
const Clusters = (what: string) =>
  Type.Array(Type.String({ pattern: CLUSTER_GLOB_PATTERN, maxLength: 63 }), {
    minItems: 1,
    maxItems: 64,
    description: `Clusters of the fleet (HELMCREW_CLUSTER_NAME) ${what}, by name or glob (\`staging-*\`, \`*\`); an unnamed cluster is \`default\`. Default: every cluster.`,
  });

export const TeamMembers = Type.Object(
  {
    slackUsers: Type.Optional(Names(SLACK_USER_PATTERN, 'Slack user ids (U…, W…).', 32)),
    slackUserGroups: Type.Optional(Names(SLACK_USER_GROUP_PATTERN, 'Slack user group ids (S…).', 32)),
    emails: Type.Optional(
      Names(
        EMAIL_PATTERN,
        'Email addresses of people who sign in to the web pages through the OIDC provider: matched on the ID token’s `email` claim, only when `email_verified` is true (case-insensitive).',
        254,
      ),
    ),
    groups: Type.Optional(Names(GROUP_PATTERN, 'Groups of the OIDC provider: matched on the ID token’s (or userinfo’s) `groups` claim, exactly.', 256)),
  },
  { description: 'Who belongs to the team: the people the bot and the web pages grant its permissions to.' },
);

/** A key in a Secret: a webhook's HMAC-SHA256 signing key, a PagerDuty routing key. */
export const SecretKeyRef = Type.Object({
  namespace: Type.String({ pattern: DNS_LABEL_PATTERN, maxLength: 63, description: 'Namespace of the Secret.' }),
  name: Type.String({ pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$', maxLength: 253 }),
  key: Type.Optional(
    Type.String({
      pattern: '^[-._a-zA-Z0-9]+$',
      maxLength: 253,
      description: 'Data key. Default: key (webhook), routing-key (pagerduty), url (msteams, googlechat), token (alertmanager, incidentio).',
    }),
  ),
});

export const WebhookChannel = Type.Object({
  url: Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 2048, description: 'Where the JSON body is POSTed.' }),
  secretRef: SecretKeyRef,
});

export const PagerDutyChannel = Type.Object(
  { secretRef: SecretKeyRef },
  { description: 'A PagerDuty service (Events API v2): failures trigger an incident per release, its recovery resolves it.' },
);

export const MSTeamsChannel = Type.Object(
  { secretRef: SecretKeyRef },
  { description: 'A Microsoft Teams channel through a Workflows webhook, whose URL is in the Secret (it is a credential): one Adaptive Card per operation.' },
);

export const AlertmanagerChannel = Type.Object(
  {
    url: Type.String({
      pattern: '^https?://[^\\s]+$',
      maxLength: 2048,
      description: "Alertmanager's base URL (http://alertmanager.monitoring:9093); alerts go to its /api/v2/alerts.",
    }),
    secretRef: Type.Optional(SecretKeyRef),
  },
  {
    description:
      'An Alertmanager (API v2): a failure fires the alert HelmReleaseFailed labelled with cluster, namespace and release, its recovery resolves it; secretRef: a bearer token (key token) for one behind an authenticating proxy.',
  },
);

export const IncidentIoChannel = Type.Object(
  {
    url: Type.String({
      pattern: '^https?://[^\\s]+$',
      maxLength: 2048,
      description: "The HTTP alert source's URL (https://api.incident.io/v2/alert_events/http/<alert source config id>), without its token.",
    }),
    secretRef: SecretKeyRef,
  },
  {
    description:
      "An incident.io HTTP alert source (Alert Events API): a failure fires the release's alert (one deduplication_key per release), its recovery resolves it; secretRef: the source's bearer token (key token).",
  },
);

export const GoogleChatChannel = Type.Object(
  { secretRef: SecretKeyRef },
  {
    description:
      "A Google Chat space through an incoming webhook, whose URL is in the Secret (it carries the webhook's key and token): one card per operation, a thread per release.",
  },
);

export const TeamChannel = Type.Object(
  {
    slack: Type.Optional(Type.String({ pattern: SLACK_CHANNEL_PATTERN, maxLength: 81, description: 'A Slack channel id (C…/G…) or #name.' })),
    webhook: Type.Optional(WebhookChannel),
    pagerduty: Type.Optional(PagerDutyChannel),
    msteams: Type.Optional(MSTeamsChannel),
    alertmanager: Type.Optional(AlertmanagerChannel),
    incidentio: Type.Optional(IncidentIoChannel),
    googlechat: Type.Optional(GoogleChatChannel),
    template: Type.Optional(
      Type.String({
        maxLength: 2000,
        description:
          'A mustache template for the message text (Slack, Teams, PagerDuty summary, webhook message). Fields: release, namespace, chart, fromVersion, toVersion, revision, outcome, event, reason, message, cluster, links.status. One that fails to render falls back to the default, with a warning on this channel.',
      }),
    ),
  },
  {
    description: 'One place the team is told: exactly one of slack, webhook, pagerduty, msteams, alertmanager, incidentio or googlechat.',
    ...celRules({
      rule: '[has(self.slack), has(self.webhook), has(self.pagerduty), has(self.msteams), has(self.alertmanager), has(self.incidentio), has(self.googlechat)].filter(x, x).size() == 1',
      message: 'a channel sets exactly one of slack, webhook, pagerduty, msteams, alertmanager, incidentio or googlechat',
    }),
  },
);

export const LabelSelectorRequirement = Type.Object({
  key: Type.String({ maxLength: 317 }),
  operator: StringEnum(['In', 'NotIn', 'Exists', 'DoesNotExist'] as const),
  values: Type.Optional(Type.Array(Type.String({ maxLength: 63 }), { maxItems: 64 })),
});

export const LabelSelector = Type.Object(
  {
    matchLabels: Type.Optional(Type.Unsafe<Record<string, string>>({ type: 'object', additionalProperties: { type: 'string', maxLength: 63 } })),
    matchExpressions: Type.Optional(Type.Array(LabelSelectorRequirement, { maxItems: 32 })),
  },
  { description: "A Kubernetes label selector over the HelmRelease's labels." },
);

export const Severity = StringEnum(['info', 'error'] as const, { description: 'Minimum severity: error hears failures only.' });

const EVENT_NAMES = Object.values(ReleaseEvent);

export const Subscription = Type.Object(
  {
    clusters: Type.Optional(Clusters('whose events the team hears')),
    namespaces: Type.Optional(Names(DNS_LABEL_PATTERN, 'HelmRelease namespaces. Default: any.', 63)),
    charts: Type.Optional(Names(CHART_NAME_PATTERN, 'Chart names. Default: any.', 250)),
    releases: Type.Optional(Names(RELEASE_REF_PATTERN, 'HelmReleases as name or namespace/name. Default: any.', 317)),
    selector: Type.Optional(LabelSelector),
    events: Type.Optional(Type.Array(StringEnum(EVENT_NAMES), { maxItems: 64, description: 'Event names. Default: all.' })),
    severity: Type.Optional(Severity),
  },
  { description: 'What the team hears: an event matches when every field given matches (a field lists alternatives).' },
);

/**
 * The `/release` verbs a Team grants (src/api/release-verbs.ts). `freeze-all`: freezing (or lifting a freeze on) the whole cluster is granted only by name, never by a broad `freeze` rule.
 * `approve`: voting on a proposal's Approve / Reject buttons (issue 35), on the releases the rule covers.
 */
export const Verb = StringEnum([...TEAM_VERBS, 'freeze-all', 'approve']);

export const Permission = Type.Object(
  {
    verbs: Type.Array(Verb, { minItems: 1, maxItems: 16 }),
    clusters: Type.Optional(Clusters('the verbs are granted in')),
    namespaces: Type.Optional(Names(DNS_LABEL_PATTERN, 'HelmRelease namespaces. Default: any.', 63)),
    releases: Type.Optional(Names(RELEASE_REF_PATTERN, 'HelmReleases as name or namespace/name. Default: any.', 317)),
    charts: Type.Optional(Names(CHART_NAME_PATTERN, 'Chart names. Default: any.', 250)),
    requireApproval: Type.Optional(Type.Boolean({ description: 'A second team member must approve (two-person rule).' })),
  },
  { description: 'What members may do from chat: verbs on the releases that match every field given.' },
);

export const TeamSpec = Type.Object(
  {
    members: Type.Optional(TeamMembers),
    channels: Type.Optional(Type.Array(TeamChannel, { maxItems: 32 })),
    subscriptions: Type.Optional(Type.Array(Subscription, { maxItems: 64 })),
    permissions: Type.Optional(Type.Array(Permission, { maxItems: 64 })),
  },
  { description: 'A team: its people, its channels, what it hears and what it may do.' },
);

export const ChannelStatus = Type.Object({
  channel: Type.String({
    maxLength: 512,
    description:
      'Which channel: the Slack channel as written, for a webhook, Alertmanager or incident.io its origin and a digest of its URL (a path can hold a token), for PagerDuty, Teams and Google Chat the Secret they read.',
  }),
  lastDeliveryAt: Type.Optional(Type.String({ format: 'date-time' })),
  lastError: Type.Optional(Type.String({ maxLength: 1024, description: 'The last permanent delivery error, until a delivery succeeds.' })),
  errorCode: Type.Optional(Type.String({ maxLength: 128 })),
  lastErrorAt: Type.Optional(Type.String({ format: 'date-time' })),
  warning: Type.Optional(Type.String({ maxLength: 1024, description: "Why the channel's template is not used (the default message is sent)." })),
});

export const TeamStatus = Type.Object({
  conditions: Type.Optional(Type.Array(Condition, { maxItems: 32 })),
  lastDeliveryAt: Type.Optional(Type.String({ format: 'date-time' })),
  channels: Type.Optional(Type.Array(ChannelStatus, { maxItems: 32 })),
});

export type TeamMembers = Static<typeof TeamMembers>;
export type SecretKeyRef = Static<typeof SecretKeyRef>;
export type WebhookChannel = Static<typeof WebhookChannel>;
export type PagerDutyChannel = Static<typeof PagerDutyChannel>;
export type MSTeamsChannel = Static<typeof MSTeamsChannel>;
export type IncidentIoChannel = Static<typeof IncidentIoChannel>;
export type GoogleChatChannel = Static<typeof GoogleChatChannel>;
export type TeamChannel = Static<typeof TeamChannel>;
export type LabelSelector = Static<typeof LabelSelector>;
export type LabelSelectorRequirement = Static<typeof LabelSelectorRequirement>;
export type Subscription = Static<typeof Subscription>;
export type Verb = Static<typeof Verb>;
export type Permission = Static<typeof Permission>;
export type TeamSpec = Static<typeof TeamSpec>;
export type ChannelStatus = Static<typeof ChannelStatus>;
export type TeamStatus = Static<typeof TeamStatus>;

export interface Team {
  apiVersion: `${typeof API_GROUP}/${typeof API_VERSION}`;
  kind: typeof TEAM_KIND;
  metadata: { name: string; uid?: string; generation?: number; resourceVersion?: string; labels?: Record<string, string> };
  spec: TeamSpec;
  status?: TeamStatus;
}
