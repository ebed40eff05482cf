#!/usr/bin/env bash
# Everything that goes into the helmcrew image, built into a directory laid out as the image's
# root: <out>/usr/local/bin/{helm,kustomize,sops,cosign,notation-verify} and <out>/app (bin/, dist/, production node_modules). The
# Dockerfile RUNs this (one stage per part), and test/integration/image-build.test.ts runs it
# outside a container, then runs what it built, so the image's steps are exercised here too.
#
#   scripts/build-image-root.sh [--helm | --app | --os] <out>     (default: helm and app)
#
# helm: `go install` of helm at HELM_VERSION, of kustomize (helm's post-renderer) at KUSTOMIZE_VERSION and of sops
# (SOPS-encrypted valuesFrom documents) at SOPS_VERSION and of cosign (signed OCI charts and images) at COSIGN_VERSION, and `go build` of tools/notation-verify (notation-go, pinned by its go.mod)
# (needs Go; nothing is downloaded at run time, the binaries are static). os (the runtime stage only): git, ssh and gpg for spec.chart.git and signature checks, from Debian, when missing. app: TypeScript compiled with the tree's own compiler (npm install first when the tree
# has none), then the production dependencies installed from package-lock.json into <out>/app.
set -euo pipefail

HELM_VERSION="${HELM_VERSION:-v4.2.4}"
KUSTOMIZE_VERSION="${KUSTOMIZE_VERSION:-v5.8.2}"
SOPS_VERSION="${SOPS_VERSION:-v3.13.3}"
COSIGN_VERSION="${COSIGN_VERSION:-v3.1.3}"
parts=(helm app)
case "${1:-}" in
  --helm) parts=(helm); shift ;;
  --app) parts=(app); shift ;;
  --os) parts=(os); shift ;;
esac
[[ $# -eq 1 ]] || { echo "usage: $0 [--helm | --app | --os] <out>" >&2; exit 2; }
mkdir -p "$1"
out="$(cd "$1" && pwd)"
src="$(cd "$(dirname "$0")/.." && pwd)"

build_helm() {
  # The flags of scripts/build-toolchain.sh, so a warm Go build cache serves both.
  mkdir -p "$out/usr/local/bin"
  CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-buildvcs=false GOBIN="$out/usr/local/bin" go install -trimpath \
    -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$HELM_VERSION" "helm.sh/helm/v4/cmd/helm@$HELM_VERSION"
  CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-buildvcs=false GOBIN="$out/usr/local/bin" go install -trimpath \
    -ldflags "-s -w" "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION"
  CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-buildvcs=false GOBIN="$out/usr/local/bin" go install -trimpath \
    -ldflags "-s -w -X github.com/getsops/sops/v3/version.Version=${SOPS_VERSION#v}" "github.com/getsops/sops/v3/cmd/sops@$SOPS_VERSION"
  CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-buildvcs=false GOBIN="$out/usr/local/bin" go install -trimpath \
    -ldflags "-s -w -X sigs.k8s.io/release-utils/version.gitVersion=$COSIGN_VERSION" "github.com/sigstore/cosign/v3/cmd/cosign@$COSIGN_VERSION"
  (cd "$src/tools/notation-verify" && CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-buildvcs=false go build -mod=readonly -trimpath \
    -ldflags "-s -w" -o "$out/usr/local/bin/notation-verify" .)
}

build_os() {
  # gpg and ssh-keygen (openssh-client) for signature checks: spec.chart.verify pgp, spec.chart.git.verify.
  command -v git >/dev/null && command -v ssh >/dev/null && command -v gpg >/dev/null && return
  apt-get update
  apt-get install -y --no-install-recommends git openssh-client gpg ca-certificates
  rm -rf /var/lib/apt/lists/*
}

build_app() {
  local app="$out/app"
  rm -rf "$app" && mkdir -p "$app"
  if [[ ! -x "$src/node_modules/.bin/tsc" ]]; then (cd "$src" && npm install --no-fund --no-audit); fi
  (cd "$src" && node_modules/.bin/tsc -p tsconfig.json --outDir "$app/dist" --sourceMap false)
  cp -R "$src/bin" "$app/bin"
  cp "$src/package.json" "$src/package-lock.json" "$app/"
  (cd "$app" && npm install --omit=dev --no-fund --no-audit --ignore-scripts)
  # The image is read-only at run time: npm's lock file and cache have no use there.
  rm -f "$app/package-lock.json" "$app/node_modules/.package-lock.json"
}

for part in "${parts[@]}"; do "build_$part"; done
