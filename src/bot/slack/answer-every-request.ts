import type { IncomingMessage, ServerResponse } from 'node:http';
import { type App, HTTPModuleFunctions, HTTPReceiver, LogLevel, type Receiver, type ReceiverEvent } from '@slack/bolt';
import type { Logger } from '../../core/log.js';

/**
 * Slack gives an app 3 s to answer; what Bolt answers nobody is shown "didn't respond" (and in
 * HTTP mode Bolt's own answer is a 404 after 3 s). Two holes in Bolt 4 are closed here:
 *
 * - A request Bolt processes but no listener acks — a body whose type Bolt cannot tell (no
 *   `command`, `actions`, `type`…), or one a listener's matcher throws on — is answered a plain
 *   200 as soon as Bolt is done with it, with a log line saying what was not understood. The
 *   clear answers to requests we can name (another slash command, a button this version does not
 *   know…) are listeners: unknown-requests.ts.
 * - A signed body that parses to `null` (`payload=null`) makes Bolt's HTTP receiver throw outside
 *   any handler (it reads `body.ssl_check`): an unhandled rejection, which ends the process. It is
 *   answered 400 here; a badly signed one still 401, as Bolt answers.
 */

/** The fields of a body that say what it was, for the log (never its tokens or text). */
function describe(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object') return { body: body === null ? 'null' : typeof body };
  const b = body as Record<string, unknown>;
  const what: Record<string, unknown> = {};
  for (const key of ['type', 'command', 'callback_id'] as const) if (typeof b[key] === 'string') what[key] = String(b[key]).slice(0, 80);
  if (Array.isArray(b.actions)) what.actions = b.actions.length;
  return what;
}

/** Bolt's processEvent, then a plain 200 when nothing acked (and the error logged when it threw). */
async function processAnswered(app: App, event: ReceiverEvent, log: Logger): Promise<void> {
  let acked = false;
  const ack: ReceiverEvent['ack'] = async (response) => {
    acked = true;
    await event.ack(response);
  };
  try {
    await app.processEvent({ ...event, ack });
  } catch (error) {
    log.warn({ err: error, ...describe(event.body) }, 'a Slack request Bolt could not process');
  }
  if (acked) return;
  log.warn(describe(event.body), 'a Slack request no listener answered: answered 200 with nothing');
  await event.ack().catch((error: unknown) => log.warn({ err: error }, 'could not answer a Slack request'));
}

/** The receiver, handing Bolt's events to Bolt and answering what Bolt leaves unanswered. */
export function answerEveryRequest(inner: Receiver, log: Logger): Receiver {
  return {
    init: (app) =>
      inner.init(
        new Proxy(app, {
          get: (target, key, receiver) =>
            key === 'processEvent' ? (event: ReceiverEvent) => processAnswered(target, event, log) : (Reflect.get(target, key, receiver) as unknown),
        }),
      ),
    start: (...args: unknown[]) => inner.start(...args),
    stop: (...args: unknown[]) => inner.stop(...args),
  };
}

/** Whether Bolt's body parser would make this buffered body `null`. */
function parsesToNull(req: IncomingMessage & { rawBody: Buffer }): boolean {
  try {
    return HTTPModuleFunctions.parseHTTPRequestBody(req) === null;
  } catch {
    return false; // not JSON: Bolt answers 400 itself
  }
}

/**
 * Bolt's HTTP receiver at /slack/events, with the body read first: a body that parses to `null`
 * is verified the way Bolt verifies (401 when forged) and refused 400; any other goes to Bolt,
 * which reads the buffered body instead of the stream.
 */
export function slackHttpReceiver(signingSecret: string, log: Logger): HTTPReceiver {
  const endpoint = '/slack/events';
  const receiver = new HTTPReceiver({ signingSecret, endpoints: endpoint, logLevel: LogLevel.WARN });
  const bolt = receiver.requestListener;
  const bodyLimit = HTTPModuleFunctions.defaultBodyLimit;
  receiver.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    // Anything but Slack's POSTs: Bolt, synchronously, as its server expects (unknown paths 404).
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://localhost').pathname !== endpoint) return bolt(req, res);
    void HTTPModuleFunctions.bufferIncomingMessage(req, bodyLimit)
      .then(
        async (buffered) => {
          if (!parsesToNull(buffered)) return bolt(buffered, res); // handled in Bolt's own async closure: it does not throw
          try {
            await HTTPModuleFunctions.parseAndVerifyHTTPRequest({ enabled: true, signingSecret, bodyLimit }, buffered);
          } catch {
            return HTTPModuleFunctions.buildNoBodyResponse(res, 401);
          }
          log.warn('a signed Slack request whose body is null: answered 400');
          HTTPModuleFunctions.buildNoBodyResponse(res, 400);
        },
        (error: unknown) => {
          // As Bolt answers: too large 413, otherwise (aborted, bad encoding) 400.
          const tooLarge = HTTPModuleFunctions.isRawBodyError(error) && (error as { statusCode: number }).statusCode === 413;
          log.warn({ err: error }, 'could not read a Slack request');
          if (!res.headersSent) HTTPModuleFunctions.buildNoBodyResponse(res, tooLarge ? 413 : 400);
        },
      )
      .catch((error: unknown) => {
        log.error({ err: error }, 'a Slack request failed before Bolt had it');
        if (!res.headersSent) HTTPModuleFunctions.buildNoBodyResponse(res, 500);
      });
  };
  return receiver;
}
