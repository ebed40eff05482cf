/**
 * `response_url`s as Slack hands them to a slash command or a button click: each accepts up to
 * 5 posts within 30 minutes. An `in_channel` answer becomes a message in the channel;
 * `replace_original` / `delete_original` act on the message the button was on.
 */
import { randomBytes } from 'node:crypto';
import { checkMessage } from './block-limits.js';
import { fail, ok, type ApiAnswer } from './methods.js';
import type { FakeWorkspace } from './workspace.js';

export const RESPONSE_URL_MAX_POSTS = 5;
export const RESPONSE_URL_LIFETIME_MS = 30 * 60_000;

export interface ResponseUrlPost {
  at: number;
  body: Record<string, unknown>;
  /** What the fake answered. */
  status: number;
}

export interface ResponseUrlRecord {
  id: string;
  channel: string;
  user: string;
  /** The message a button was clicked on, for replace_original / delete_original. */
  messageTs?: string;
  createdAt: number;
  posts: ResponseUrlPost[];
}

export class ResponseUrls {
  private readonly urls = new Map<string, ResponseUrlRecord>();

  constructor(
    private readonly ws: FakeWorkspace,
    private readonly now: () => number,
  ) {}

  create(channel: string, user: string, messageTs?: string): ResponseUrlRecord {
    const record: ResponseUrlRecord = { id: randomBytes(8).toString('hex'), channel, user, messageTs, createdAt: this.now(), posts: [] };
    this.urls.set(record.id, record);
    return record;
  }

  get(id: string): ResponseUrlRecord | undefined {
    return this.urls.get(id);
  }

  all(): ResponseUrlRecord[] {
    return [...this.urls.values()];
  }

  post(id: string, body: Record<string, unknown>): ApiAnswer {
    const record = this.urls.get(id);
    if (!record) return { status: 404, body: { ok: false, error: 'no_such_url' } };
    const answer = this.answer(record, body);
    // Refused posts are recorded too, so a test sees the sixth attempt and its refusal.
    record.posts.push({ at: this.now(), body, status: answer.status });
    return answer;
  }

  private answer(record: ResponseUrlRecord, body: Record<string, unknown>): ApiAnswer {
    if (this.now() - record.createdAt > RESPONSE_URL_LIFETIME_MS) return { status: 404, body: { ok: false, error: 'expired_url' } };
    const accepted = record.posts.filter((p) => p.status === 200).length;
    if (accepted >= RESPONSE_URL_MAX_POSTS) return { status: 404, body: { ok: false, error: 'used_url' } };
    const original = record.messageTs ? this.ws.findMessage(record.channel, record.messageTs) : undefined;
    if (body.delete_original === true) {
      if (original) original.deleted = true;
      return ok();
    }
    const problem = checkMessage(body);
    if (problem)
      return { status: 400, body: { ok: false, error: problem.error, ...(problem.messages ? { response_metadata: { messages: problem.messages } } : {}) } };
    const content = {
      text: typeof body.text === 'string' ? body.text : '',
      blocks: body.blocks as unknown[] | undefined,
      attachments: body.attachments as unknown[] | undefined,
    };
    if (body.replace_original === true && original) {
      original.edits.push({ text: original.text, blocks: original.blocks, attachments: original.attachments });
      Object.assign(original, content);
      return ok();
    }
    if (body.response_type === 'in_channel') {
      const channel = this.ws.channels.get(record.channel);
      if (!channel) return fail('channel_not_found');
      const threadTs = typeof body.thread_ts === 'string' ? body.thread_ts : undefined;
      this.ws.messages.push({ channel: channel.id, ts: this.ws.nextTs(), author: this.ws.app.botId, ...content, threadTs, edits: [] });
      return ok();
    }
    this.ws.ephemerals.push({ channel: record.channel, user: record.user, text: content.text, blocks: content.blocks, messageTs: this.ws.nextTs() });
    return ok();
  }
}

/** Polls a response_url's record until Slack accepted a post on it; rejects after the timeout. */
export async function firstAcceptedPost(record: () => ResponseUrlRecord | undefined, url: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const accepted = record()?.posts.find((p) => p.status === 200);
    if (accepted) return accepted.body;
    if (Date.now() >= deadline) throw new Error(`no reply on ${url} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
