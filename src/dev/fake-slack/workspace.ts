/**
 * The fake's workspace: tokens, channels, users, messages and the record of every call. Tests
 * query it; the method handlers change it.
 */

export type TokenState = 'valid' | 'revoked' | 'inactive';

export interface FakeChannel {
  id: string;
  name: string;
  /** Whether the app's bot user is in the channel (posting needs it). */
  isMember: boolean;
  isArchived: boolean;
  /** User IDs in the channel; chat.postEphemeral needs the user to be one. */
  members: string[];
  /** A direct-message conversation (conversations.open), not a channel. */
  isIm?: boolean;
}

export interface FakeUser {
  id: string;
  name: string;
  realName?: string;
  /** Sign in with Slack's `email` claim; default `<name>@example.org`. */
  email?: string;
}

export interface FakeMessage {
  channel: string;
  ts: string;
  /** bot_id of the app that posted it, or the user ID for a person's message. */
  author: string;
  text: string;
  blocks?: unknown[];
  attachments?: unknown[];
  threadTs?: string;
  /** A thread reply also sent to the channel (`reply_broadcast`): Slack shows it there too, subtype `thread_broadcast`. */
  broadcast?: boolean;
  /** Versions before the current one, oldest first (chat.update keeps them here). */
  edits: Array<{ text: string; blocks?: unknown[]; attachments?: unknown[] }>;
  deleted?: boolean;
}

export interface RecordedCall {
  method: string;
  /** Arguments as the server received them (JSON fields parsed); `token` removed. */
  params: Record<string, unknown>;
  /** HTTP status answered (0 when the connection was dropped on purpose). */
  status: number;
  ok: boolean;
  error?: string;
  /** Set when the answer came from fault injection. */
  fault?: string;
  at: number;
}

export interface EphemeralMessage {
  channel: string;
  user: string;
  text: string;
  blocks?: unknown[];
  messageTs: string;
}

export interface AppIdentity {
  teamId: string;
  team: string;
  userId: string;
  botId: string;
}

export class FakeWorkspace {
  readonly tokens = new Map<string, TokenState>();
  readonly channels = new Map<string, FakeChannel>();
  readonly users = new Map<string, FakeUser>();
  /** User groups (subteams) by ID, with their members' user IDs. */
  readonly userGroups = new Map<string, string[]>();
  readonly messages: FakeMessage[] = [];
  readonly ephemerals: EphemeralMessage[] = [];
  readonly calls: RecordedCall[] = [];
  private sequence = 0;

  constructor(
    readonly app: AppIdentity,
    private readonly now: () => number,
  ) {}

  /** A channel by ID, `#name` or `name`, as chat.postMessage accepts it. */
  resolveChannel(ref: string): FakeChannel | undefined {
    const byId = this.channels.get(ref);
    if (byId) return byId;
    const name = ref.startsWith('#') ? ref.slice(1) : ref;
    return [...this.channels.values()].find((c) => c.name === name);
  }

  /** Unique, increasing message timestamps in Slack's "seconds.micro" shape. */
  nextTs(): string {
    this.sequence += 1;
    return `${Math.floor(this.now() / 1000)}.${String(this.sequence).padStart(6, '0')}`;
  }

  findMessage(channel: string, ts: string): FakeMessage | undefined {
    return this.messages.find((m) => m.channel === channel && m.ts === ts && !m.deleted);
  }
}
