/**
 * The HTTP side of the fake: reads a Web API call the way Slack accepts it (form-encoded with
 * JSON-encoded `blocks`/`attachments`, or a JSON body), and the token from the Authorization
 * header or the `token` argument.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiAnswer } from './methods.js';

const JSON_FIELDS = ['blocks', 'attachments', 'metadata'];
const MAX_BODY_BYTES = 1024 * 1024;

export class BodyTooLarge extends Error {}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge('request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The call's arguments; `undefined` when a JSON body does not parse. */
export function parseArguments(contentType: string | undefined, raw: string, query: URLSearchParams): Record<string, unknown> | undefined {
  const params: Record<string, unknown> = Object.fromEntries(query.entries());
  if ((contentType ?? '').includes('application/json')) {
    if (raw.trim() === '') return params;
    try {
      const body = JSON.parse(raw) as unknown;
      return typeof body === 'object' && body !== null && !Array.isArray(body) ? { ...params, ...(body as Record<string, unknown>) } : undefined;
    } catch {
      return undefined;
    }
  }
  for (const [key, value] of new URLSearchParams(raw).entries()) params[key] = value;
  for (const key of JSON_FIELDS) {
    const value = params[key];
    if (typeof value !== 'string') continue;
    try {
      params[key] = JSON.parse(value);
    } catch {
      // Left as a string: the method answers invalid_blocks_format / invalid_attachments.
    }
  }
  return params;
}

/** Bearer token from the header, else the `token` argument (Slack accepts both for form posts). */
export function callerToken(req: IncomingMessage, params: Record<string, unknown>): string | undefined {
  const header = req.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    return match?.[1];
  }
  return typeof params.token === 'string' && params.token !== '' ? params.token : undefined;
}

export function send(res: ServerResponse, answer: ApiAnswer): void {
  const body = JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...answer.headers,
  });
  res.end(body);
}
