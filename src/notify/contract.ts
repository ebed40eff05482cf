import type { ReleaseEvent, Severity } from '../api/vocabulary.js';
import type { Requester } from '../core/requests/requester-ledger.js';

/**
 * The contract between the controller (which publishes), the notify router (which routes and
 * delivers) and the providers (Slack, webhooks). One typed notification per happening.
 */
export interface ReleaseNotification {
  /** Unique per notification; delivery is idempotent on it. */
  id: string;
  /**
   * Groups the notifications of one release operation (an upgrade from start to outcome), so a
   * provider updates one message in place: `${uid}:${generation}:${action}`-like, stable per attempt.
   */
  operationId: string;
  event: ReleaseEvent;
  severity: Severity;
  release: {
    /** The HelmRelease object. */
    namespace: string;
    name: string;
    /** The Helm release it manages. */
    releaseName: string;
    targetNamespace: string;
    /** spec.kubeConfig: the kubeconfig Secret of the cluster it is installed in (not this one); absent: this cluster. */
    targetCluster?: string;
    chart: string;
    labels: Record<string, string>;
  };
  fromVersion?: string;
  toVersion?: string;
  revision?: number;
  /** Who or what caused it: "spec change (generation 4)", "periodic check", "slack:U0123 rollback". */
  cause: string;
  /** Human summary, already redacted of Secret values (the same text as the Kubernetes Event). */
  message: string;
  /** helm's error excerpt for failures, already redacted. */
  errorExcerpt?: string;
  /** Who asked for it (chat or terminal), as authenticated: never from the HelmRelease (core/requests/requester-ledger.ts). */
  requester?: Requester;
  /** A Git chart's revision deployed (`1.2.0+abc1234`): named as the cause when nobody asked. */
  gitRevision?: string;
  /** The distinct container images of the release's workloads after it, the first 20, and how many more. */
  images?: string[];
  moreImages?: number;
  /** ISO time it happened. */
  at: string;
  /** The proposal it is about (ProposalOpened…) or the upgrade applies (issue 35), and who proposed and approved that change. */
  proposalId?: string;
  proposedBy?: string;
  approvers?: string[];
  /** The cluster's name (HELMCREW_CLUSTER_NAME), stamped by notify before delivery so every message says where it comes from. */
  cluster?: string;
}

/** A key in a Kubernetes Secret (the key has a per-kind default). */
export interface SecretRef {
  namespace?: string;
  name: string;
  key?: string;
}

/** Where a Team is told; one per channel kind. */
export type ChannelRef =
  | { kind: 'slack'; channel: string }
  | { kind: 'webhook'; url: string; secretRef: SecretRef }
  | { kind: 'pagerduty'; secretRef: SecretRef }
  | { kind: 'msteams'; secretRef: SecretRef }
  /** Alertmanager's base URL (not a credential); a bearer token, when it needs one, in a Secret. */
  | { kind: 'alertmanager'; url: string; secretRef?: SecretRef }
  /** An incident.io HTTP alert source's URL (not a credential) and its bearer token in a Secret. */
  | { kind: 'incidentio'; url: string; secretRef: SecretRef }
  /** A Google Chat incoming webhook, whose URL (it carries a key and a token) is in a Secret. */
  | { kind: 'googlechat'; secretRef: SecretRef };

/** A delivery that can never succeed by retrying (bad token, unknown channel). */
export class PermanentDeliveryError extends Error {
  override name = 'PermanentDeliveryError';
  constructor(
    /** Stable code, e.g. Slack's `channel_not_found`, `invalid_auth`, `not_in_channel`, or `http_404`. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A delivery that may succeed later (network error, 5xx, 429 with Retry-After). */
export class RetryableDeliveryError extends Error {
  override name = 'RetryableDeliveryError';
  constructor(
    message: string,
    /** Server-requested wait (Retry-After), in ms. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/**
 * A provider delivers one notification to one channel. It may keep per-operation state (a Slack
 * message reference) through the `references` store, which survives restarts and a wiped Redis.
 */
export interface NotificationProvider<C extends ChannelRef = ChannelRef> {
  readonly kind: C['kind'];
  /**
   * `pace` is given to a provider that `pacesItself`: it awaits it before each call that a limit
   * counts, so each slot is reserved when its call is about to go. Other providers' deliveries are
   * one message each, paced by notify before `deliver` is called.
   */
  deliver(notification: ReleaseNotification, channel: C, team: string, pace?: Pace): Promise<void>;
  readonly pacesItself?: boolean;
}

/**
 * A limit one call is counted against: the channel's (HELMCREW_NOTIFY_RATE_*) or a bucket every
 * replica shares (Slack's chat.update tier). `within`: reserve the shared slot only if it is at
 * most that many ms away, else take nothing (the caller says its message another way).
 */
export type PacedCall = { bucket: 'channel' } | { bucket: 'shared'; key: string; perSecond: number; burst: number; within?: number };

/**
 * Resolves true when the call may go (its slot reserved in Redis), false when `within` was given
 * and the slot is further away (nothing reserved); throws StepAsideError when the wait is too long
 * to hold a worker for.
 */
export type Pace = (call: PacedCall) => Promise<boolean>;

/**
 * The mailbox cannot go on yet — a rate limit asks for a longer wait than is worth holding a
 * worker slot for, or an earlier notification of the release is still being routed — so the job
 * steps aside (delayed by `waitMs`) and other mailboxes are served meanwhile. Not a failure.
 */
export class StepAsideError extends Error {
  override name = 'StepAsideError';
  constructor(
    readonly waitMs: number,
    reason: string,
    /** A rate-limit slot reserved for when the job comes back (epoch ms): it sends then without asking again. */
    readonly slotAt?: number,
    /** The bucket the slot is in (undefined: the channel's). */
    readonly slotKey?: string,
  ) {
    super(reason);
  }
}
