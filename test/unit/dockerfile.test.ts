import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/dev/paths.js';

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const dockerfile = read('Dockerfile');
const instructions = (name: string) => [...dockerfile.matchAll(new RegExp(`^${name}\\s+(.+)$`, 'gm'))].map((m) => m[1]!);
const defaultOf = (text: string, variable: string) => new RegExp(`${variable}="\\$\\{${variable}:-([^}]+)\\}"`).exec(text)?.[1];

describe('Dockerfile', () => {
  it('passes dockerfile-utils lint (also run by make lint)', async () => {
    const lint = await execa('npx', ['dockerfile-utils', 'lint', join(REPO_ROOT, 'Dockerfile')], { cwd: REPO_ROOT, reject: false });
    expect(lint.exitCode, lint.stdout).toBe(0);
    // npx and the linter's start take ~1 s idle but 6-7 s on a loaded machine: the default 5 s was a flake, not a finding.
  }, 60_000);

  it('pins every base image by exact version, multi-stage', () => {
    const bases = instructions('FROM').map((from) => from.split(/\s+/)[0]!);
    expect(bases.length).toBeGreaterThanOrEqual(3);
    for (const base of bases) expect(base).toMatch(/^[a-z]+:\d+\.\d+\.\d+-[a-z]+(-slim)?$/);
    // The runtime is the Node the tests ran on, and the builds use the same images as each other.
    expect(new Set(bases.filter((b) => b.startsWith('node:')))).toEqual(new Set([`node:${process.versions.node}-bookworm-slim`]));
  });

  it('builds cosign at the version the local toolchain pins, and points the controller at it', () => {
    const cosignVersion = defaultOf(read('scripts/build-toolchain.sh'), 'COSIGN_VERSION');
    expect(cosignVersion).toMatch(/^v3\.\d+\.\d+$/);
    expect(instructions('ARG')).toContain(`COSIGN_VERSION=${cosignVersion}`);
    expect(defaultOf(read('scripts/build-image-root.sh'), 'COSIGN_VERSION')).toBe(cosignVersion);
    expect(instructions('ENV').at(-1)).toContain('COSIGN_BIN=/usr/local/bin/cosign');
  });

  it('builds notation-verify from the tool in this tree (notation-go pinned by its go.mod), and points the controller at it', () => {
    const notationGo = defaultOf(read('scripts/build-toolchain.sh'), 'NOTATION_GO_VERSION');
    expect(read('tools/notation-verify/go.mod')).toContain(`github.com/notaryproject/notation-go ${notationGo}\n`);
    expect(instructions('COPY')).toContain('tools/notation-verify /src/tools/notation-verify');
    expect(read('scripts/build-image-root.sh')).toMatch(/cd "\$src\/tools\/notation-verify" && .*go build/);
    expect(instructions('ENV').at(-1)).toContain('NOTATION_VERIFY_BIN=/usr/local/bin/notation-verify');
  });

  it('builds sops at the version the local toolchain pins, and points the controller at it', () => {
    const sopsVersion = defaultOf(read('scripts/build-toolchain.sh'), 'SOPS_VERSION');
    expect(sopsVersion).toMatch(/^v3\.\d+\.\d+$/);
    expect(instructions('ARG')).toContain(`SOPS_VERSION=${sopsVersion}`);
    expect(defaultOf(read('scripts/build-image-root.sh'), 'SOPS_VERSION')).toBe(sopsVersion);
    expect(instructions('ENV').at(-1)).toContain('SOPS_BIN=/usr/local/bin/sops');
  });

  it('builds helm and kustomize at the versions the local toolchain pins, with the one build script, and runs as a non-root user', () => {
    const helmVersion = defaultOf(read('scripts/build-toolchain.sh'), 'HELM_VERSION');
    expect(helmVersion).toMatch(/^v\d+\.\d+\.\d+$/);
    expect(instructions('ARG')).toContain(`HELM_VERSION=${helmVersion}`);
    expect(defaultOf(read('scripts/build-image-root.sh'), 'HELM_VERSION')).toBe(helmVersion);
    const kustomizeVersion = defaultOf(read('scripts/build-toolchain.sh'), 'KUSTOMIZE_VERSION');
    expect(instructions('ARG')).toContain(`KUSTOMIZE_VERSION=${kustomizeVersion}`);
    expect(defaultOf(read('scripts/build-image-root.sh'), 'KUSTOMIZE_VERSION')).toBe(kustomizeVersion);
    expect(instructions('RUN').every((run) => run.includes('build-image-root.sh'))).toBe(true);
    const user = instructions('USER').at(-1)!;
    expect(user).toMatch(/^[1-9]\d{3,}(:\d+)?$/);
    expect(instructions('ENTRYPOINT').at(-1)).toBe('["node", "/app/bin/helmcrew.js"]');
  });
});
