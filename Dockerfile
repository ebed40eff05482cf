# helmcrew: the controller, notify and the /release bot in one image, with helm (and kustomize, sops, cosign, notation-verify) built in.
# Build: docker build -t helmcrew:0.1.0 .
# Every step is scripts/build-image-root.sh, which the tests also run outside a container
# (test/integration/image-build.test.ts); bases are pinned by exact version (docs/chart.md).

FROM golang:1.26.8-bookworm AS helm
ARG HELM_VERSION=v4.2.4
ARG KUSTOMIZE_VERSION=v5.8.2
ARG SOPS_VERSION=v3.13.3
ARG COSIGN_VERSION=v3.1.3
COPY scripts/build-image-root.sh /src/scripts/
COPY tools/notation-verify /src/tools/notation-verify
RUN HELM_VERSION=${HELM_VERSION} KUSTOMIZE_VERSION=${KUSTOMIZE_VERSION} SOPS_VERSION=${SOPS_VERSION} COSIGN_VERSION=${COSIGN_VERSION} /src/scripts/build-image-root.sh --helm /out

FROM node:20.20.2-bookworm-slim AS app
WORKDIR /src
COPY package.json package-lock.json tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY scripts/build-image-root.sh ./scripts/
RUN scripts/build-image-root.sh --app /out

FROM node:20.20.2-bookworm-slim
# A 1 MiB young generation and an old-space limit that keeps V8 from letting garbage grow to 4×
# the live heap; at most two glibc malloc arenas, where V8's worker threads would otherwise each
# keep one: less RSS for the controller (bench/RESULTS.md and docs/field-notes.md, issue 9). A fixed
# mmap threshold: glibc otherwise raises it after each large buffer freed and keeps later ones in
# its heap (the web part's peak 80.0–80.9 → 77.7–77.8 MiB, docs/performance.md, issue 47).
# The benchmarks read these values from here (bench/lib/image-env.ts).
ENV NODE_ENV=production HELM_BIN=/usr/local/bin/helm KUSTOMIZE_BIN=/usr/local/bin/kustomize SOPS_BIN=/usr/local/bin/sops COSIGN_BIN=/usr/local/bin/cosign NOTATION_VERIFY_BIN=/usr/local/bin/notation-verify NODE_OPTIONS="--max-semi-space-size=1 --max-old-space-size=512" MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072
# git, ssh and gpg for charts from Git (spec.chart.git) and signature checks (verification.md), from the base's own Debian release.
COPY scripts/build-image-root.sh /tmp/
RUN /tmp/build-image-root.sh --os / && rm /tmp/build-image-root.sh
COPY --from=helm /out/ /
COPY --from=app /out/ /
WORKDIR /app
# Not root, and not the base image's node user (1000): the chart's runAsUser.
USER 10001:10001
ENTRYPOINT ["node", "/app/bin/helmcrew.js"]
CMD ["run"]
