import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Pages, the stylesheet and the script go out gzipped when the browser accepts it (node's zlib:
 * no plugin to load). The fleet page at 1,000 releases is ~135 KB of HTML and ~6.5 KB gzipped
 * (docs/performance.md). Only gzip: brotli's quality 4 made it 3 KB but its buffers cost the
 * process ~6 MiB more RSS over 50 pages, and RSS is the web part's tighter target. The live stream
 * (/events) hijacks its reply and never comes here.
 */

export type Encoding = 'gzip';

/** Below this a compressed answer saves less than its headers cost. */
const MIN_BYTES = 1024;

/** zlib's gzip (on its thread pool), for the onSend hook and for answers kept already compressed. */
export const gzipAnswer: (payload: string | Buffer) => Promise<Buffer> = promisify(gzip);

/** Pure: the encoding to answer with, from `Accept-Encoding` (`q=0` refuses; `*` stands for any). */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  if (!acceptEncoding) return undefined;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const weight = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    if (name) q.set(name, weight === undefined ? 1 : Number(weight));
  }
  return (q.get('gzip') ?? q.get('*') ?? 0) > 0 ? 'gzip' : undefined;
}

/** Pure: whether an answer of this type and size is worth compressing (text that is not already encoded). */
export function compressible(contentType: string | undefined, bytes: number, alreadyEncoded: boolean): boolean {
  return !alreadyEncoded && bytes >= MIN_BYTES && /^(text\/(html|css|plain)|application\/(javascript|json))\b/.test(contentType ?? '');
}

/** Fastify's onSend hook: compresses a string or Buffer body when both sides allow it. */
export async function compressReply(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
  const type = reply.getHeader('content-type')?.toString();
  const bytes = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
  if (!compressible(type, bytes, reply.hasHeader('content-encoding'))) return payload;
  // Caches between must keep the encodings apart, compressed or not.
  reply.header('vary', 'accept-encoding');
  const encoding = chooseEncoding(request.headers['accept-encoding']);
  if (!encoding) return payload;
  reply.header('content-encoding', encoding);
  reply.removeHeader('content-length');
  return gzipAnswer(payload);
}
