import { beforeAll, describe, expect, it } from 'vitest';
import { waitForReconciled } from '../../src/dev/releases.js';
import { waitForChecks } from '../support/checks.js';
import { cosignKeyPair, cosignSign, ociReference, type CosignKeyPair } from '../support/cosign.js';
import { waitForReadyCondition } from '../support/eventually.js';
import { uniqueName } from '../support/fixtures.js';
import { pushRepackaged } from '../support/oci.js';
import { signedChartsFixture } from '../support/signed-charts.js';

/** spec.chart.verify: OCI charts signed with the real cosign, verified before helm sees them. */
describe('signed OCI charts (cosign)', () => {
  const {
    env,
    kubeConfig,
    api,
    storage,
    namespace,
    ctl,
    toolRuns: cosignRuns,
    secret: keySecret,
    chart,
    declare,
    pushed,
    eventsOf,
  } = signedChartsFixture('cosign', 'team-keys');
  let team: CosignKeyPair;
  let stranger: CosignKeyPair;

  beforeAll(async () => {
    [team, stranger] = await Promise.all([cosignKeyPair(), cosignKeyPair()]);
    await keySecret('team-keys', { 'cosign.pub': team.publicKey });
  });

  it('installs a chart signed by a trusted key, and says who signed it; at rest, no cosign runs', async () => {
    const { url, ref } = await pushed('signed');
    await cosignSign(team, ref);
    const release = await waitForReconciled(kubeConfig, namespace, 'signed', await declare('signed', chart(url), '1s'));
    expect(release.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
    expect((await storage.history(namespace, 'signed')).deployed).toMatchObject({ revision: 1, chartVersion: '1.0.0' });
    expect(release.status?.verification).toMatchObject({ artifact: 'unicorn@1.0.0', provider: 'cosign', digest: ref.split('@')[1], verifiedBy: 'cosign.pub' });
    // At rest: four more checks (1s interval) find the same digest, and run no cosign.
    const runs = await cosignRuns();
    await waitForChecks(env.redisUrl, ctl.prefix, [`${namespace}/signed`], 4, 30_000);
    expect(await cosignRuns()).toBe(runs);
  });

  it('refuses a tampered chart (same tag, another digest, unsigned): nothing installed, told once; the release stays on what it runs', async () => {
    const { url, ref } = await pushed('tampered');
    await cosignSign(team, ref);
    await waitForReconciled(kubeConfig, namespace, 'tampered', await declare('tampered', chart(url), '1s'));
    await pushRepackaged(env, url, '3.0.0', '1.0.0');
    const tampered = await ociReference(`${url}/unicorn`, '1.0.0');
    expect(tampered).not.toBe(ref);
    const ready = await waitForReadyCondition(kubeConfig, namespace, 'tampered', 'VerificationFailed', 30_000);
    expect(ready.message).toBe(
      `HelmRelease ${namespace}/tampered: chart ${tampered} failed verification: it is not signed (cosign: no signature); nothing of it is rendered or installed`,
    );
    // Several checks later: still revision 1 (helm made no record, pulled nothing), one Event only.
    await waitForChecks(env.redisUrl, ctl.prefix, [`${namespace}/tampered`], 4, 30_000);
    expect((await storage.history(namespace, 'tampered')).deployed).toMatchObject({ revision: 1, appVersion: '1.0.0' });
    expect((await ctl.helm.invocations()).filter((a) => a[0] === 'pull' && a[1] === `oci://${tampered}`)).toEqual([]);
    expect(await eventsOf('tampered', 'VerificationFailed')).toHaveLength(1);
    // The next good artifact proceeds: the fix, signed, pushed over the same tag.
    await pushRepackaged(env, url, '2.0.0', '1.0.0');
    await cosignSign(team, await ociReference(`${url}/unicorn`, '1.0.0'));
    await waitForReadyCondition(kubeConfig, namespace, 'tampered', 'UpgradeSucceeded', 30_000);
    expect((await storage.history(namespace, 'tampered')).deployed).toMatchObject({ revision: 2, appVersion: '2.0.0-as-1.0.0' });
  });

  it('without verify, the same tampered chart is installed (the check is what stops it)', async () => {
    const { url } = await pushed('unverified');
    await pushRepackaged(env, url, '3.0.0', '1.0.0');
    const { verify: _, ...plain } = chart(url);
    await waitForReconciled(kubeConfig, namespace, 'unverified', await declare('unverified', plain));
    expect((await storage.history(namespace, 'unverified')).deployed).toMatchObject({ revision: 1, appVersion: '3.0.0-as-1.0.0' });
  });

  it.each([
    { name: 'unsigned', setup: async (_ref: string) => undefined, secret: 'team-keys', check: 'it is not signed (cosign: no signature)' },
    {
      name: 'signed by another key',
      setup: async (ref: string) => cosignSign(stranger, ref),
      secret: 'team-keys',
      check:
        'it is signed by a key that is not among the keys of Secret NS/team-keys (spec.chart.verify.secretRef) (cosign: no signature by an accepted key or identity (tried cosign.pub))',
    },
    {
      name: 'a malformed key Secret',
      setup: async (ref: string) => cosignSign(team, ref),
      secret: 'bad-keys',
      check:
        'the keys in Secret NS/bad-keys (spec.chart.verify.secretRef) cannot be used (Secret NS/bad-keys (spec.chart.verify.secretRef): cosign.pub is not a PEM public key (cosign generate-key-pair writes cosign.pub))',
    },
    {
      name: 'a missing key Secret',
      setup: async (ref: string) => cosignSign(team, ref),
      secret: 'no-such-keys',
      check: 'the keys in Secret NS/no-such-keys (spec.chart.verify.secretRef) cannot be used (Secret NS/no-such-keys (spec.chart.verify.secretRef) not found)',
    },
  ])('refuses a chart $name before anything is installed', async ({ name, setup, secret, check }) => {
    if (secret === 'bad-keys') await keySecret('bad-keys', { 'cosign.pub': 'not a key' }).catch(() => undefined);
    const { url, ref } = await pushed('refused');
    await setup(ref);
    const release = uniqueName('refused');
    await declare(release, chart(url, { verify: { provider: 'cosign', secretRef: { name: secret } } }));
    const ready = await waitForReadyCondition(kubeConfig, namespace, release, 'VerificationFailed', 30_000);
    expect(ready.message).toBe(
      `HelmRelease ${namespace}/${release}: chart ${ref} failed verification: ${check.replaceAll('NS', namespace)}; nothing of it is rendered or installed`,
    );
    expect((await storage.history(namespace, release)).deployed).toBeUndefined();
    const helmSaw = (await ctl.helm.invocations()).filter((a) => (a[0] === 'install' && a[1] === release) || (a[0] === 'pull' && a[1] === `oci://${ref}`));
    expect(helmSaw).toEqual([]);
    expect((await api.get(namespace, release))?.status?.verification).toBeUndefined();
    void name;
  });
});
