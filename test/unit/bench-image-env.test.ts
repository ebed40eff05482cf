import { describe, expect, it } from 'vitest';
import { finalStageEnv, imageControllerEnv } from '../../bench/lib/image-env.js';

describe('bench: the image runtime variables read from the Dockerfile', () => {
  it('takes only the final stage, quoted values whole, continuation lines joined, later ones winning', () => {
    const dockerfile = [
      'FROM golang AS build',
      'ENV GOFLAGS=-trimpath',
      'FROM node:20-slim',
      'ENV NODE_OPTIONS="--a=1 --b" \\',
      '    MALLOC_ARENA_MAX=4',
      'RUN echo ENV NOT=this',
      'env MALLOC_ARENA_MAX=2 QUOTE="say \\"hi\\""',
    ].join('\n');
    expect(finalStageEnv(dockerfile)).toEqual({ NODE_OPTIONS: '--a=1 --b', MALLOC_ARENA_MAX: '2', QUOTE: 'say "hi"' });
  });

  it("gives the benchmarks the image's NODE_OPTIONS and malloc setting, not its helm path", () => {
    const env = imageControllerEnv();
    expect(env.NODE_OPTIONS).toMatch(/--max-old-space-size=\d+/);
    expect(env.MALLOC_ARENA_MAX).toBe('2');
    expect(env).not.toHaveProperty('HELM_BIN');
  });
});
