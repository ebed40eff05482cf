import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FixedWindowLimit, LoopbackFake } from '../loopback-fake.js';

/** A message a webhook posted, with the thread Google Chat put it in. */
export interface FakeChatMessage {
  space: string;
  /** `spaces/{space}/messages/{id}`. */
  name: string;
  /** `spaces/{space}/threads/{id}`. */
  thread: string;
  threadKey?: string;
  body: Record<string, unknown>;
}

export interface FakeChatPost {
  at: number;
  status: number;
  path: string;
  /** The query as sent (it holds the webhook's key and token). */
  query: string;
  raw: string;
  message?: FakeChatMessage;
}

/** A message is at most 32,000 bytes (Google Chat's limit on a message's size). */
export const MAX_MESSAGE_BYTES = 32_000;
/** Message text is at most 4,096 characters. */
export const MAX_TEXT_CHARS = 4096;
const MESSAGE_FIELDS = new Set(['text', 'cardsV2', 'fallbackText', 'thread', 'accessoryWidgets', 'privateMessageViewer', 'annotations', 'attachment']);
const REPLY_OPTIONS = new Set(['MESSAGE_REPLY_OPTION_UNSPECIFIED', 'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD', 'REPLY_MESSAGE_OR_FAIL']);
const PATH = /^\/v1\/spaces\/([A-Za-z0-9_-]+)\/messages$/;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why Google Chat would refuse this message body (its 400 INVALID_ARGUMENT message); undefined when it takes it. Pure. */
export function chatMessageError(body: unknown): string | undefined {
  if (!isObject(body)) return 'Invalid JSON payload received. Expected an object for "message".';
  for (const field of Object.keys(body))
    if (!MESSAGE_FIELDS.has(field)) return `Invalid JSON payload received. Unknown name "${field}" at 'message': Cannot find field.`;
  const text = body.text;
  if (text !== undefined && typeof text !== 'string') return "Invalid value at 'message.text' (TYPE_STRING)";
  if (typeof text === 'string' && text.length > MAX_TEXT_CHARS) return `Message text is longer than ${MAX_TEXT_CHARS} characters.`;
  const cards = body.cardsV2;
  if (cards !== undefined) {
    if (!Array.isArray(cards)) return "Invalid value at 'message.cards_v2' (type.googleapis.com/google.chat.v1.CardWithId)";
    for (const [i, entry] of cards.entries()) {
      if (!isObject(entry) || !isObject(entry.card)) return `Invalid value at 'message.cards_v2[${i}].card'`;
      const card = entry.card;
      const sections = card.sections;
      if (!isObject(card.header) && (!Array.isArray(sections) || sections.length === 0))
        return `message.cards_v2[${i}].card: a card needs a header or a section.`;
      if (sections !== undefined && (!Array.isArray(sections) || !sections.every((s) => isObject(s) && Array.isArray(s.widgets) && s.widgets.length > 0)))
        return `message.cards_v2[${i}].card.sections: every section needs at least one widget.`;
    }
  }
  if ((typeof text !== 'string' || text.trim() === '') && (!Array.isArray(cards) || cards.length === 0)) return 'Message cannot be empty. Discarded.';
  if (body.thread !== undefined && (!isObject(body.thread) || (body.thread.threadKey !== undefined && typeof body.thread.threadKey !== 'string')))
    return "Invalid value at 'message.thread.thread_key' (TYPE_STRING)";
  return undefined;
}

/**
 * A local Google Chat incoming webhook on 127.0.0.1 and a free port, answering as Google documents:
 * `POST /v1/spaces/{space}/messages?key=…&token=…` → 200 with the created Message (`name`,
 * `thread.name`); with `thread.threadKey` and `messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD`
 * the message joins the key's thread (started by the first), without the option every message
 * starts a new thread (the default ignores the key); 400 INVALID_ARGUMENT for a body Chat cannot
 * take; 401 UNAUTHENTICATED for a wrong token and 400 for a wrong key; 404 for a space it does not
 * know; 429 RESOURCE_EXHAUSTED (no Retry-After, as Google sends none) past one message a second per
 * space (`messagesPerSecond`) or when `throttleNext` says so.
 */
export class FakeGoogleChat extends LoopbackFake {
  readonly posts: FakeChatPost[] = [];
  private readonly webhooks = new Map<string, { key: string; token: string }>();
  private readonly threads = new Map<string, string>();
  private readonly limit: FixedWindowLimit;
  private counter = 0;

  constructor(private readonly options: { messagesPerSecond?: number } = {}) {
    super('Google Chat');
    this.limit = new FixedWindowLimit(1000, () => this.options.messagesPerSecond ?? 1);
  }

  /** A space with an incoming webhook: its URL, which carries the key and the token. */
  addWebhook(space: string, secrets: { key?: string; token?: string } = {}): string {
    const key = secrets.key ?? `AIza${randomBytes(16).toString('hex')}`;
    const token = secrets.token ?? randomBytes(24).toString('base64url');
    this.webhooks.set(space, { key, token });
    return `http://127.0.0.1:${this.port}/v1/spaces/${space}/messages?key=${encodeURIComponent(key)}&token=${encodeURIComponent(token)}`;
  }

  throttleNext(count: number): void {
    this.limit.refuseNext(count);
  }

  /** The messages a space received, oldest first. */
  messages(space: string): FakeChatMessage[] {
    return this.posts.filter((p) => p.message?.space === space).map((p) => p.message!);
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const post: FakeChatPost = { at: Date.now(), status: 0, path: url.pathname, query: url.search, raw: '' };
    this.posts.push(post);
    const answer = (status: number, body: Record<string, unknown>) => {
      post.status = status;
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' }).end(JSON.stringify(body));
    };
    const error = (code: number, status: string, message: string) => answer(code, { error: { code, message, status } });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    post.raw = Buffer.concat(chunks).toString('utf8');
    const match = PATH.exec(url.pathname);
    if (req.method !== 'POST' || !match) return error(404, 'NOT_FOUND', 'Requested entity was not found.');
    const space = match[1]!;
    const webhook = this.webhooks.get(space);
    if (!webhook) return error(404, 'NOT_FOUND', 'Requested entity was not found.');
    if (url.searchParams.get('key') !== webhook.key) return error(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.');
    if (url.searchParams.get('token') !== webhook.token) return error(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.');
    const option = url.searchParams.get('messageReplyOption') ?? 'MESSAGE_REPLY_OPTION_UNSPECIFIED';
    if (!REPLY_OPTIONS.has(option))
      return error(
        400,
        'INVALID_ARGUMENT',
        `Invalid value at 'message_reply_option' (type.googleapis.com/google.chat.v1.CreateMessageRequest.MessageReplyOption), "${option}"`,
      );
    if (this.limit.throttled(space)) return error(429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).');
    if (Buffer.byteLength(post.raw) > MAX_MESSAGE_BYTES) return error(400, 'INVALID_ARGUMENT', `Message is larger than ${MAX_MESSAGE_BYTES} bytes.`);
    let body: unknown;
    try {
      body = JSON.parse(post.raw);
    } catch {
      return error(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received. Unexpected token.');
    }
    const invalid = chatMessageError(body);
    if (invalid) return error(400, 'INVALID_ARGUMENT', invalid);
    const message = body as Record<string, unknown>;
    const threadKey = (message.thread as { threadKey?: string } | undefined)?.threadKey;
    const replies = option !== 'MESSAGE_REPLY_OPTION_UNSPECIFIED' && threadKey !== undefined;
    const id = () => `${++this.counter}.${randomBytes(4).toString('hex')}`;
    let thread = replies ? this.threads.get(`${space}\n${threadKey}`) : undefined;
    if (!thread) {
      thread = `spaces/${space}/threads/${id()}`;
      if (replies) this.threads.set(`${space}\n${threadKey}`, thread);
    }
    post.message = { space, name: `spaces/${space}/messages/${id()}`, thread, ...(replies ? { threadKey } : {}), body: message };
    answer(200, {
      name: post.message.name,
      sender: { name: 'users/webhook', type: 'BOT' },
      createTime: new Date(post.at).toISOString(),
      ...(typeof message.text === 'string' ? { text: message.text } : {}),
      ...(message.cardsV2 ? { cardsV2: message.cardsV2 } : {}),
      thread: { name: thread, ...(replies ? { threadKey } : {}) },
      space: { name: `spaces/${space}` },
    });
  }
}
