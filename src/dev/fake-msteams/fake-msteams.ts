import type { IncomingMessage, ServerResponse } from 'node:http';
import { FixedWindowLimit, LoopbackFake } from '../loopback-fake.js';

export interface FakeTeamsPost {
  at: number;
  path: string;
  status: number;
  raw: string;
  /** The Adaptive Card, when the post carried a valid one. */
  card?: Record<string, unknown>;
}

const ADAPTIVE = 'application/vnd.microsoft.card.adaptive';
/** Teams refuses a message larger than about 28 KB. */
export const MAX_MESSAGE_BYTES = 28 * 1024;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why a Workflows webhook would refuse this body (the shape its "post card" step needs); undefined when it is a card message. Pure. */
export function teamsMessageError(body: unknown): string | undefined {
  if (!isObject(body) || body.type !== 'message') return "body must be an object with type 'message'";
  const attachments = body.attachments;
  if (!Array.isArray(attachments) || attachments.length !== 1) return 'attachments must hold exactly one card';
  const [attachment] = attachments as unknown[];
  if (!isObject(attachment) || attachment.contentType !== ADAPTIVE) return `the attachment's contentType must be ${ADAPTIVE}`;
  const card = attachment.content;
  if (!isObject(card) || card.type !== 'AdaptiveCard') return "the attachment's content must be an AdaptiveCard";
  if (typeof card.version !== 'string') return 'the card must declare its version';
  if (!Array.isArray(card.body) || card.body.length === 0) return 'the card has no body';
  return undefined;
}

/**
 * A local Teams Workflows webhook on 127.0.0.1 and a free port: any path is a webhook. A card
 * message gets 202 Accepted (what Workflows answers, before the flow runs); a body that is not one
 * 400; too many posts to one webhook (or `throttleNext`) 429 with Retry-After.
 */
export class FakeMSTeams extends LoopbackFake {
  readonly posts: FakeTeamsPost[] = [];
  private readonly limit: FixedWindowLimit;

  constructor(private readonly options: { postsPerSecond?: number; retryAfterSeconds?: number } = {}) {
    super('Teams');
    this.limit = new FixedWindowLimit(1000, () => this.options.postsPerSecond ?? 4);
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  cards(path: string): Record<string, unknown>[] {
    return this.posts.filter((p) => p.path === path && p.card).map((p) => p.card!);
  }

  throttleNext(count: number): void {
    this.limit.refuseNext(count);
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const post: FakeTeamsPost = { at: Date.now(), path, status: 0, raw: '' };
    this.posts.push(post);
    const answer = (status: number, body: string, headers: Record<string, string> = {}) => {
      post.status = status;
      res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(body);
    };
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    post.raw = Buffer.concat(chunks).toString('utf8');
    if (req.method !== 'POST') return answer(405, 'Method Not Allowed');
    if (Buffer.byteLength(post.raw) > MAX_MESSAGE_BYTES) return answer(413, 'Request Entity Too Large');
    if (this.throttled(path)) return answer(429, 'Too Many Requests', { 'retry-after': String(this.options.retryAfterSeconds ?? 1) });
    let body: unknown;
    try {
      body = JSON.parse(post.raw);
    } catch {
      return answer(400, 'Bad Request: body is not JSON');
    }
    const error = teamsMessageError(body);
    if (error) return answer(400, `Bad Request: ${error}`);
    post.card = (body as { attachments: { content: Record<string, unknown> }[] }).attachments[0]!.content;
    answer(202, '');
  }

  private throttled(path: string): boolean {
    return this.limit.throttled(path);
  }
}
