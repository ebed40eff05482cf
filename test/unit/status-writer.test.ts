import { describe, expect, it } from 'vitest';
import { StatusWriter } from '../../src/controller/reconcile/ports/status-writer.js';
import { FakeHelmReleaseApi, helmRelease, World } from './support/reconcile-fakes.js';

describe('StatusWriter', () => {
  const setUp = () => {
    const api = new FakeHelmReleaseApi(new World());
    const release = api.put({ ...helmRelease(), status: { observedGeneration: 1, lastReconciledAt: 'then' } });
    return { api, release, writer: new StatusWriter(() => api, release) };
  };

  it.each([
    { name: 'bookkeeping only', patch: { lastReconciledAt: 'now' }, sent: false },
    { name: 'the same field, same value', patch: { observedGeneration: 1 }, sent: false },
    { name: 'a new value', patch: { observedGeneration: 2 }, sent: true },
  ])('writeIfChanged against the status the pass started from: $name → sent $sent', async ({ patch, sent }) => {
    const { api, release, writer } = setUp();
    expect(await writer.writeIfChanged(release, patch)).toBe(sent);
    expect(api.statusWrites).toBe(sent ? 1 : 0);
  });

  it('diffs against the status the server last answered with, not the one the pass started from', async () => {
    const { api, release, writer } = setUp();
    const written = await writer.write(release, { observedGeneration: 2 });
    expect(written.status?.observedGeneration).toBe(2);
    // The same patch again: the server already has it.
    expect(await writer.writeIfChanged(release, { observedGeneration: 2 })).toBe(false);
    expect(api.statusWrites).toBe(1);
  });

  it('write always sends (what must reach the server before helm)', async () => {
    const { api, release, writer } = setUp();
    await writer.write(release, { lastReconciledAt: 'now' });
    expect(api.statusWrites).toBe(1);
  });
});
