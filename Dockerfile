# helmcrew: the controller (and later notify and bot) in one image, with a pinned helm.
# Build: docker build -t helmcrew:0.1.0 .

FROM golang:1.26-bookworm AS helm
ARG HELM_VERSION=v4.2.4
RUN CGO_ENABLED=0 GOBIN=/out go install -trimpath \
      -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=${HELM_VERSION}" \
      helm.sh/helm/v4/cmd/helm@${HELM_VERSION}
# helm's post-renderer for spec.postRenderers and spec.commonMetadata (run as a helm plugin).
ARG KUSTOMIZE_VERSION=v5.8.2
RUN CGO_ENABLED=0 GOBIN=/out go install -trimpath -ldflags "-s -w" sigs.k8s.io/kustomize/kustomize/v5@${KUSTOMIZE_VERSION}

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-fund --no-audit
COPY tsconfig.json ./
COPY src ./src
RUN npx tsc -p tsconfig.json && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
# A 1 MiB young generation and an old-space limit that keeps V8 from letting garbage grow to 4×
# the live heap; at most two glibc malloc arenas, where V8's worker threads would otherwise each
# keep one: less RSS for the controller (bench/RESULTS.md and docs/field-notes.md, issue 9).
# The benchmarks read these values from here (bench/lib/image-env.ts).
ENV NODE_ENV=production HELM_BIN=/usr/local/bin/helm KUSTOMIZE_BIN=/usr/local/bin/kustomize NODE_OPTIONS="--max-semi-space-size=1 --max-old-space-size=512" MALLOC_ARENA_MAX=2
COPY --from=helm /out/helm /usr/local/bin/helm
COPY --from=helm /out/kustomize /usr/local/bin/kustomize
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
USER 10001
ENTRYPOINT ["node", "/app/bin/helmcrew.js"]
CMD ["run"]
