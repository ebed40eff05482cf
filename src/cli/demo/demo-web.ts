import type { FakeSlack } from '../../dev/fake-slack/index.js';
import { freePort } from '../../dev/free-port.js';
import type { Logger } from '../../core/log.js';
import { readWebConfig } from '../../web/server/config.js';
import { startWeb } from '../commands/web.js';
import { ALICE, DEMO_OIDC_CLIENT } from './demo-slack.js';

/**
 * The demo's last step: the release pages on a loopback port, Sign in with Slack through the local
 * fake Slack (Alice, the on-call member). Before printing the address the demo signs in once itself,
 * as a browser would (redirects and cookies by hand), so the sign-in it prints is one that works.
 */
export async function startDemoWeb(opts: { kubeconfig: string; redisUrl: string; queuePrefix: string; slack: FakeSlack; log: Logger }) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    KUBECONFIG: opts.kubeconfig,
    REDIS_URL: opts.redisUrl,
    HELMCREW_QUEUE_PREFIX: opts.queuePrefix,
    HELMCREW_WEB_LISTEN: `127.0.0.1:${port}`,
    HELMCREW_WEB_URL: url,
    HELMCREW_SLACK_OIDC_CLIENT_ID: DEMO_OIDC_CLIENT.clientId,
    HELMCREW_SLACK_OIDC_CLIENT_SECRET: DEMO_OIDC_CLIENT.clientSecret,
    HELMCREW_SLACK_OIDC_ISSUER_URL: opts.slack.origin,
  };
  const web = await startWeb(readWebConfig(env), opts.log, undefined, env);
  return { url, signInUrl: `${url}/auth/login/slack`, user: ALICE, stop: () => web.stop() };
}

/** Signs in with Slack as `user` (the fake's `login_hint`) and reads the fleet page: its HTML, or why not. */
export async function signInOnce(url: string, user: string): Promise<{ ok: true; fleet: string } | { ok: false; why: string }> {
  const jar = new Map<string, string>();
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const step = async (target: string) => {
    const res = await fetch(target, { redirect: 'manual', headers: target.startsWith(url) ? { cookie: cookieHeader() } : {} });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return res;
  };
  let res = await step(`${url}/auth/login/slack`);
  for (let hops = 0; hops < 6 && res.status >= 300 && res.status < 400; hops++) {
    const next = new URL(res.headers.get('location')!, res.url || url);
    if (!next.href.startsWith(url) && !next.searchParams.has('login_hint')) next.searchParams.set('login_hint', user);
    res = await step(next.href);
  }
  if (res.status !== 200) return { ok: false, why: `the sign-in ended with HTTP ${res.status}` };
  return { ok: true, fleet: await res.text() };
}
