import { PlanAction, ReleaseAction } from '../../src/core/slack/action-ids.js';
import { FAKE_APP_ID } from '../../src/dev/fake-slack/index.js';

/**
 * Seeded generators of the requests Slack could send the bot's /slack/events (and some it never
 * would): a failure names its seed and index, and the same seed makes the same requests.
 */

/** mulberry32: a small seeded PRNG, good enough to pick cases. */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const chance = (p: number) => next() < p;
  const str = (max = 24) => Array.from({ length: 1 + int(max) }, () => pick(CHARS)).join('');
  return { next, int, pick, chance, str };
}
export type Random = ReturnType<typeof seededRandom>;

const CHARS = [...'abcdefghijklmnopqrstuvwxyz0123456789_-/ .:{}[]"\\<>&@#%', 'é', '😀', '\u0000', '\n', '\u202e'];
const OUR_IDS = [...Object.values(PlanAction), ...Object.values(ReleaseAction)];

/** A value of a type the field does not expect (or a very large one). */
export function oddValue(r: Random, depth = 0): unknown {
  switch (r.int(12)) {
    case 0:
      return r.int(2 ** 31) - 2 ** 30;
    case 1:
      return 1e308;
    case 2:
      return r.chance(0.5);
    case 3:
      return null;
    case 4:
      return [];
    case 5:
      return depth < 3 ? [oddValue(r, depth + 1), r.str()] : [];
    case 6:
      return {};
    case 7:
      return depth < 3 ? { [r.str(8)]: oddValue(r, depth + 1) } : {};
    case 8:
      return 'x'.repeat(20_000 + r.int(80_000)); // huge
    case 9:
      return '';
    case 10:
      return r.str(200);
    default:
      return -0.5;
  }
}

/** Drops some keys of an object and gives others odd values. */
function mangle(r: Random, value: Record<string, unknown>, rate: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (r.chance(rate)) continue;
    out[key] = r.chance(rate) ? oddValue(r) : v;
  }
  return out;
}

const PAYLOAD_TYPES = [
  'block_actions',
  'shortcut',
  'message_action',
  'view_submission',
  'view_closed',
  'block_suggestion',
  'interactive_message',
  'dialog_submission',
  'workflow_step_edit',
  'function_executed',
];

function action(r: Random): Record<string, unknown> {
  const actionId = r.pick<unknown>([...OUR_IDS, 'release_unknown_v9', 'approve_all', r.str(), oddValue(r)]);
  const a = {
    type: r.pick<unknown>(['button', 'button', 'static_select', 'overflow', oddValue(r)]),
    action_id: actionId,
    block_id: r.str(8),
    // Values that name no real namespace or plan: a click never reaches a real release.
    value: r.pick<unknown>([`fuzz-${r.int(1000)}/nothing`, r.str(40), oddValue(r)]),
    action_ts: '1.2',
  };
  return mangle(r, a, 0.15);
}

/** An interactivity payload (the `payload=` of a form): Slack's shape, then mangled. */
function interactivePayload(r: Random, responseUrl: string, channel: string): unknown {
  const payload = {
    type: r.pick<unknown>([...PAYLOAD_TYPES, r.str(12), oddValue(r)]),
    team: { id: 'T0FAKE', domain: 'fake' },
    user: { id: r.pick(['UFUZZ', 'UALICE', r.str(10)]), username: 'fuzz' },
    api_app_id: FAKE_APP_ID,
    token: 'legacy-unused',
    trigger_id: '1.2.3',
    channel: { id: channel, name: 'fuzz' },
    response_url: responseUrl,
    callback_id: r.pick<unknown>(['cb', r.str(), oddValue(r)]),
    actions: Array.from({ length: r.int(4) }, () => action(r)),
    view: mangle(r, { id: 'V1', callback_id: r.str(10), type: 'modal', state: { values: {} } }, 0.3),
    message: { ts: '1.1', text: r.str(40) },
    action_id: r.pick<unknown>([...OUR_IDS, r.str()]),
    block_id: r.str(6),
    value: r.str(10),
    name: r.str(6),
  };
  return mangle(r, payload, 0.25);
}

/** A slash-command form: our command or another, with odd fields (form values are always strings). */
function slashForm(r: Random, responseUrl: string, channel: string): Record<string, string> {
  const form: Record<string, string> = {
    token: 'legacy-unused',
    team_id: 'T0FAKE',
    channel_id: channel,
    user_id: r.pick(['UFUZZ', r.str(10), '']),
    // Text that never starts with a verb: the bot answers with help or "did you mean", acting on nothing.
    command: r.pick(['/release', '/release', '/deploy', '/Release', '', r.str(30), '/' + 'x'.repeat(5000)]),
    text: r.pick(['', 'help', `zz${r.str(60)}`, `zz ${'y'.repeat(30_000)}`, '\u0000\u202e😀']),
    response_url: responseUrl,
    trigger_id: '1.2.3',
    api_app_id: FAKE_APP_ID,
  };
  for (const key of Object.keys(form)) if (r.chance(0.15)) delete form[key];
  return form;
}

export type FuzzRequest =
  | { kind: 'form'; form: Record<string, string>; expect: number; what: string }
  | { kind: 'raw'; body: string; contentType: string; expect: number; what: string };

/** One request of each run: a slash command, a payload, broken JSON, or an Events API body. */
export function fuzzRequest(r: Random, responseUrl: () => string, channel: string): FuzzRequest {
  switch (r.int(10)) {
    case 0:
    case 1:
    case 2: {
      const form = slashForm(r, responseUrl(), channel);
      return { kind: 'form', form, expect: 200, what: `slash command ${JSON.stringify(form.command ?? null)?.slice(0, 40)}` };
    }
    case 3:
    case 4:
    case 5:
    case 6: {
      const payload = interactivePayload(r, responseUrl(), channel);
      const type = (payload as { type?: unknown }).type;
      return { kind: 'form', form: { payload: JSON.stringify(payload) }, expect: 200, what: `payload type ${JSON.stringify(type)?.slice(0, 40)}` };
    }
    case 7: {
      // Bolt answers a body it cannot parse 400 at once; `null` parses, and is refused 400 too.
      const broken = r.pick(['{', '{"type":', '[1,2', 'undefined', `{"type":"block_actions","actions":[${'['.repeat(50)}`, 'null']);
      return { kind: 'form', form: { payload: broken }, expect: 400, what: `payload ${broken.slice(0, 30)}` };
    }
    case 8: {
      // JSON that parses to something other than an object: Bolt cannot tell its type.
      const value = r.pick(['123', '"text"', '[]', 'true', '{}', '{"actions":"not an array"}']);
      return { kind: 'form', form: { payload: value }, expect: 200, what: `payload ${value}` };
    }
    default: {
      // The Events API (JSON bodies): an event of odd shape, or no event at all.
      const body = r.pick<unknown>([
        { type: 'event_callback', team_id: 'T0FAKE', api_app_id: FAKE_APP_ID, event: oddValue(r) },
        { type: 'event_callback', team_id: 'T0FAKE', event: { type: 'app_mention', user: oddValue(r), text: oddValue(r), channel } },
        { type: 'event_callback', team_id: 'T0FAKE', event: { type: r.str(12) } },
        { type: r.str(10) },
        { token: 'x', ...(r.chance(0.5) ? { challenge: oddValue(r) } : {}) },
      ]);
      return { kind: 'raw', body: JSON.stringify(body), contentType: 'application/json', expect: 200, what: `event ${JSON.stringify(body).slice(0, 60)}` };
    }
  }
}
