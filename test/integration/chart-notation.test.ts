import { beforeAll, describe, expect, it } from 'vitest';
import { waitForReconciled } from '../../src/dev/releases.js';
import { waitForChecks } from '../support/checks.js';
import { ociReference } from '../support/cosign.js';
import { waitForReadyCondition } from '../support/eventually.js';
import { uniqueName } from '../support/fixtures.js';
import { notationSign, notationSigner, trustPolicy, type NotationSigner } from '../support/notation.js';
import { pushRepackaged } from '../support/oci.js';
import { signedChartsFixture } from '../support/signed-charts.js';

/** spec.chart.verify provider notation: OCI charts signed with notation-go (tools/notation-verify), verified before helm sees them. */
describe('signed OCI charts (notation)', () => {
  const {
    env,
    kubeConfig,
    api,
    storage,
    namespace,
    ctl,
    toolRuns: notationRuns,
    secret: trustSecret,
    chart,
    declare,
    pushed,
    eventsOf,
  } = signedChartsFixture('notation', 'team-trust');
  let team: NotationSigner;
  let stranger: NotationSigner;

  beforeAll(async () => {
    [team, stranger] = await Promise.all([notationSigner('Example', 'chart-signer'), notationSigner('Stranger', 'someone')]);
    await trustSecret('team-trust', { 'trustpolicy.json': trustPolicy(), 'team-ca.crt': team.caPem });
  });

  it('installs a chart signed by a trusted certificate, and says who signed it; at rest, no notation runs', async () => {
    const { url, ref } = await pushed('signed');
    await notationSign(team, ref);
    const release = await waitForReconciled(kubeConfig, namespace, 'signed', await declare('signed', chart(url), '1s'));
    expect(release.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
    expect((await storage.history(namespace, 'signed')).deployed).toMatchObject({ revision: 1, chartVersion: '1.0.0' });
    expect(release.status?.verification).toMatchObject({
      artifact: 'unicorn@1.0.0',
      provider: 'notation',
      digest: ref.split('@')[1],
      verifiedBy: team.subject,
    });
    // At rest: four more checks (1s interval) find the same digest, and run no notation.
    const runs = await notationRuns();
    await waitForChecks(env.redisUrl, ctl.prefix, [`${namespace}/signed`], 4, 30_000);
    expect(await notationRuns()).toBe(runs);
  });

  it('refuses a tampered chart (same tag, another digest, unsigned): nothing installed, told once; the release stays on what it runs', async () => {
    const { url, ref } = await pushed('tampered');
    await notationSign(team, ref);
    await waitForReconciled(kubeConfig, namespace, 'tampered', await declare('tampered', chart(url), '1s'));
    await pushRepackaged(env, url, '3.0.0', '1.0.0');
    const tampered = await ociReference(`${url}/unicorn`, '1.0.0');
    expect(tampered).not.toBe(ref);
    const ready = await waitForReadyCondition(kubeConfig, namespace, 'tampered', 'VerificationFailed', 30_000);
    expect(ready.message).toBe(
      `HelmRelease ${namespace}/tampered: chart ${tampered} failed verification: it is not signed (notation: no signature); nothing of it is rendered or installed`,
    );
    await waitForChecks(env.redisUrl, ctl.prefix, [`${namespace}/tampered`], 4, 30_000);
    expect((await storage.history(namespace, 'tampered')).deployed).toMatchObject({ revision: 1, appVersion: '1.0.0' });
    expect((await ctl.helm.invocations()).filter((a) => a[0] === 'pull' && a[1] === `oci://${tampered}`)).toEqual([]);
    expect(await eventsOf('tampered', 'VerificationFailed')).toHaveLength(1);
  });

  it('without verify, the same tampered chart is installed (the check is what stops it)', async () => {
    const { url } = await pushed('unverified');
    await pushRepackaged(env, url, '3.0.0', '1.0.0');
    const { verify: _, ...plain } = chart(url);
    await waitForReconciled(kubeConfig, namespace, 'unverified', await declare('unverified', plain));
    expect((await storage.history(namespace, 'unverified')).deployed).toMatchObject({ revision: 1, appVersion: '3.0.0-as-1.0.0' });
  });

  const untrusted =
    'it is signed by a key that is not among the keys of Secret NS/SECRET (spec.chart.verify.secretRef) (notation: no signature verifies against the trust policy and trust store: signature verification failed; failed to verify signature with digest sha256:';
  const unusable = 'the keys in Secret NS/SECRET (spec.chart.verify.secretRef) cannot be used (';
  it.each([
    { name: 'unsigned', sign: 'none', secret: 'team-trust', check: 'it is not signed (notation: no signature)', then: '' },
    {
      name: 'signed by another certificate',
      sign: 'stranger',
      secret: 'team-trust',
      check: untrusted,
      then: "the signature's certificate chain does not contain any trusted certificate",
    },
    {
      name: 'signed by the trusted CA, but not an identity the policy names',
      sign: 'team',
      secret: 'other-identity',
      check: untrusted,
      then: 'signing certificate from the digital signature does not match the X.509 trusted identities',
    },
    {
      name: 'a trust policy that is not JSON',
      sign: 'team',
      secret: 'malformed-policy',
      check: `${unusable}Secret NS/malformed-policy (spec.chart.verify.secretRef): trustpolicy.json is not JSON)`,
      then: '',
    },
    {
      name: 'a trust policy notation refuses',
      sign: 'team',
      secret: 'invalid-policy',
      check: `${unusable}notation: trust policy: `,
      then: 'version',
    },
    {
      name: 'no trust policy',
      sign: 'team',
      secret: 'no-policy',
      check: `${unusable}Secret NS/no-policy (spec.chart.verify.secretRef) has no trustpolicy.json (the notation trust policy))`,
      then: '',
    },
    {
      name: 'a missing Secret',
      sign: 'team',
      secret: 'no-such-trust',
      check: `${unusable}Secret NS/no-such-trust (spec.chart.verify.secretRef) not found)`,
      then: '',
    },
  ])('refuses a chart $name before anything is installed', async ({ sign, secret, check, then }) => {
    const secrets: Record<string, Record<string, string>> = {
      'other-identity': { 'trustpolicy.json': trustPolicy(['x509.subject: C=US, ST=WA, O=Example, CN=release-bot']), 'ca.crt': team.caPem },
      'malformed-policy': { 'trustpolicy.json': '{"version": "1.0", "trustPolicies": [', 'ca.crt': team.caPem },
      'invalid-policy': { 'trustpolicy.json': trustPolicy().replace('"1.0"', '"9.9"'), 'ca.crt': team.caPem },
      'no-policy': { 'ca.crt': team.caPem },
    };
    if (secrets[secret]) await trustSecret(secret, secrets[secret]).catch(() => undefined);
    const { url, ref } = await pushed('refused');
    if (sign !== 'none') await notationSign(sign === 'team' ? team : stranger, ref);
    const release = uniqueName('refused');
    await declare(release, chart(url, { verify: { provider: 'notation', secretRef: { name: secret } } }));
    const ready = await waitForReadyCondition(kubeConfig, namespace, release, 'VerificationFailed', 30_000);
    const head = `HelmRelease ${namespace}/${release}: chart ${ref} failed verification: ${check.replaceAll('NS', namespace).replaceAll('SECRET', secret)}`;
    const tail = '; nothing of it is rendered or installed';
    if (check.endsWith(')')) expect(ready.message).toBe(head + tail);
    else {
      expect(ready.message.startsWith(head), ready.message).toBe(true);
      expect(ready.message).toContain(then);
      expect(ready.message.endsWith(tail)).toBe(true);
    }
    expect((await storage.history(namespace, release)).deployed).toBeUndefined();
    const helmSaw = (await ctl.helm.invocations()).filter((a) => (a[0] === 'install' && a[1] === release) || (a[0] === 'pull' && a[1] === `oci://${ref}`));
    expect(helmSaw).toEqual([]);
    expect((await api.get(namespace, release))?.status?.verification).toBeUndefined();
  });
});
