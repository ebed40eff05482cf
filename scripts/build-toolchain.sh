#!/usr/bin/env bash
# Builds the real parts of the local environment from Go modules into a cache outside the
# repository, keyed by version: kube-apiserver, kube-controller-manager, kube-scheduler, kubectl,
# etcd, kwok, helm, kustomize (helm's post-renderer), sops (SOPS-encrypted values) and age +
# age-keygen (the tests encrypt with them), cosign (verifies signed OCI charts and images; the
# tests sign with it) and notation-verify (tools/notation-verify: notation-go's check of Notary
# Project signatures; the tests sign with it). A second run finds them and returns at once.
# Why Go modules: this machine has no container engine and cannot download release binaries.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.35.4}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
HELM_VERSION="${HELM_VERSION:-v4.2.4}"
KUSTOMIZE_VERSION="${KUSTOMIZE_VERSION:-v5.8.2}"
SOPS_VERSION="${SOPS_VERSION:-v3.13.3}"
AGE_VERSION="${AGE_VERSION:-v1.3.2}"
COSIGN_VERSION="${COSIGN_VERSION:-v3.1.3}"
# notation-go, the library tools/notation-verify is built on (pinned in its go.mod; this names the folder).
NOTATION_GO_VERSION="${NOTATION_GO_VERSION:-v1.3.2}"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${HELMCREW_CACHE:-$HOME/.cache/helmcrew}"
BIN="$CACHE/bin"
JOBS="${GO_BUILD_JOBS:-2}"

export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-buildvcs=false
mkdir -p "$BIN" "$CACHE/src"

say() { printf '[toolchain %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# go build prints nothing for minutes; a heartbeat shows it is alive.
with_heartbeat() {
  local label="$1"; shift
  local started=$SECONDS
  ( while sleep 30; do say "$label: still building ($((SECONDS - started))s)"; done ) &
  local beat=$!
  local status=0
  "$@" || status=$?
  kill "$beat" 2>/dev/null || true
  wait "$beat" 2>/dev/null || true
  return $status
}

build_kubernetes() {
  local out="$BIN/k8s-$K8S_VERSION"
  if [[ -x "$out/kube-apiserver" && -x "$out/kube-controller-manager" && -x "$out/kube-scheduler" && -x "$out/kubectl" ]]; then
    say "kubernetes $K8S_VERSION cached in $out"; return
  fi
  local minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
  local staging_version="v0.${K8S_VERSION#v1.}"
  local dir="$CACHE/src/k8s-$K8S_VERSION"
  mkdir -p "$dir" "$out"
  say "building kubernetes $K8S_VERSION (a cold build takes 15-30 minutes on 2 cores)"
  # k8s.io/kubernetes replaces its staging modules with local paths; a wrapper module points
  # each at its published tag instead.
  local staging=(api apiextensions-apiserver apimachinery apiserver cli-runtime client-go
    cloud-provider cluster-bootstrap code-generator component-base component-helpers
    controller-manager cri-api cri-client csi-translation-lib dynamic-resource-allocation
    endpointslice externaljwt kms kube-aggregator kube-controller-manager kube-proxy
    kube-scheduler kubectl kubelet metrics mount-utils pod-security-admission sample-apiserver
    sample-cli-plugin sample-controller)
  {
    echo "module helmcrew.local/k8s"
    echo "go 1.24"
    echo "require k8s.io/kubernetes $K8S_VERSION"
    for m in "${staging[@]}"; do echo "replace k8s.io/$m => k8s.io/$m $staging_version"; done
  } >"$dir/go.mod"
  cat >"$dir/tools.go" <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
  (cd "$dir" && with_heartbeat "kubernetes modules" go mod tidy -e >/dev/null 2>"$dir/tidy.log" || { cat "$dir/tidy.log" >&2; exit 1; })
  local pkg=k8s.io/component-base/version cpkg=k8s.io/client-go/pkg/version
  local ldflags="-s -w"
  for p in $pkg $cpkg; do
    ldflags+=" -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  (cd "$dir" && with_heartbeat "kubernetes $K8S_VERSION" go build -p "$JOBS" -trimpath \
    -tags selinux,notest,grpcnotrace -ldflags "$ldflags" -o "$out/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl)
  say "kubernetes $K8S_VERSION built"
}

build_etcd() {
  local out="$BIN/etcd-$ETCD_VERSION"
  if [[ -x "$out/etcd" ]]; then say "etcd $ETCD_VERSION cached"; return; fi
  local dir="$CACHE/src/etcd-$ETCD_VERSION"
  mkdir -p "$dir" "$out"
  say "building etcd $ETCD_VERSION"
  {
    echo "module helmcrew.local/etcd"
    echo "go 1.24"
    echo "require go.etcd.io/etcd/server/v3 $ETCD_VERSION"
  } >"$dir/go.mod"
  cat >"$dir/tools.go" <<'GO'
//go:build tools

package tools

import _ "go.etcd.io/etcd/server/v3"
GO
  (cd "$dir" && with_heartbeat "etcd modules" go mod tidy -e >/dev/null 2>"$dir/tidy.log" || { cat "$dir/tidy.log" >&2; exit 1; })
  (cd "$dir" && with_heartbeat "etcd $ETCD_VERSION" go build -p "$JOBS" -trimpath -ldflags "-s -w" \
    -o "$out/etcd" go.etcd.io/etcd/server/v3)
  say "etcd $ETCD_VERSION built"
}

build_go_install() { # name version module-path
  local name="$1" version="$2" module="$3" ldflags="${4:-}"
  local out="$BIN/$name-$version"
  if [[ -x "$out/$name" ]]; then say "$name $version cached"; return; fi
  mkdir -p "$out"
  say "building $name $version"
  GOBIN="$out" with_heartbeat "$name $version" go install -trimpath -ldflags "-s -w $ldflags" "$module@$version"
  say "$name $version built"
}

# kwok's own Stage definitions ship inside its Go module; keep a copy beside the binary so a
# cleaned module cache does not take them away. helmcrew reads them from there at start-up.
install_kwok_stages() {
  local out="$BIN/kwok-$KWOK_VERSION/stages"
  if [[ -f "$out/pod-ready.yaml" && -f "$out/node-initialize.yaml" ]]; then return; fi
  local dir
  dir=$(go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
  [[ -d "$dir" ]] || { echo "kwok module not found in the Go module cache" >&2; exit 1; }
  mkdir -p "$out"
  cp "$dir/kustomize/stage/node/fast/node-initialize.yaml" \
     "$dir/kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml" \
     "$dir/kustomize/stage/pod/fast/pod-ready.yaml" \
     "$dir/kustomize/stage/pod/fast/pod-complete.yaml" \
     "$dir/kustomize/stage/pod/fast/pod-delete.yaml" "$out/"
  chmod 644 "$out"/*.yaml
  say "kwok stages copied to $out"
}

# sops decrypts SOPS-encrypted valuesFrom documents (the controller runs it, the key in its
# environment); its version is stamped as sops' own release build does.
build_sops() {
  build_go_install sops "$SOPS_VERSION" github.com/getsops/sops/v3/cmd/sops \
    "-X github.com/getsops/sops/v3/version.Version=${SOPS_VERSION#v}"
}

# age and age-keygen: the tests make keys and encrypt with the real tools. One go install
# builds both into the same folder.
build_age() {
  local out="$BIN/age-$AGE_VERSION"
  if [[ -x "$out/age" && -x "$out/age-keygen" ]]; then say "age $AGE_VERSION cached"; return; fi
  mkdir -p "$out"
  say "building age $AGE_VERSION"
  GOBIN="$out" with_heartbeat "age $AGE_VERSION" go install -trimpath -ldflags "-s -w" \
    "filippo.io/age/cmd/age@$AGE_VERSION" "filippo.io/age/cmd/age-keygen@$AGE_VERSION"
  say "age $AGE_VERSION built"
}

# cosign verifies signatures on OCI charts and images (spec.chart.verify, imageUpdates[].verify);
# the tests make keys and sign with it. Its version is stamped as its release build does.
build_cosign() {
  build_go_install cosign "$COSIGN_VERSION" github.com/sigstore/cosign/v3/cmd/cosign \
    "-X sigs.k8s.io/release-utils/version.gitVersion=$COSIGN_VERSION"
}

# notation-verify: the notation CLI's Go module is not served by the module proxy, its library
# notation-go is; tools/notation-verify is a small program on it (verify; sign and certs for the
# tests). Built from this checkout's source, so a stamp of that source decides whether to rebuild.
build_notation_verify() {
  local src="$REPO_ROOT/tools/notation-verify"
  local out="$BIN/notation-verify-$NOTATION_GO_VERSION"
  local stamp
  stamp=$(cd "$src" && cat go.mod go.sum ./*.go | sha256sum | cut -d' ' -f1)
  if [[ -x "$out/notation-verify" && "$(cat "$out/.source-sha256" 2>/dev/null)" == "$stamp" ]]; then
    say "notation-verify (notation-go $NOTATION_GO_VERSION) cached"; return
  fi
  grep -q "github.com/notaryproject/notation-go $NOTATION_GO_VERSION\$" "$src/go.mod" || {
    echo "tools/notation-verify/go.mod does not pin notation-go $NOTATION_GO_VERSION" >&2; exit 1; }
  mkdir -p "$out"
  say "building notation-verify (notation-go $NOTATION_GO_VERSION)"
  (cd "$src" && with_heartbeat "notation-verify" go build -mod=readonly -p "$JOBS" -trimpath -ldflags "-s -w" \
    -o "$out/notation-verify" .)
  echo "$stamp" >"$out/.source-sha256"
  say "notation-verify (notation-go $NOTATION_GO_VERSION) built"
}

what="${1:-all}"
case "$what" in
  kubernetes) build_kubernetes ;;
  etcd) build_etcd ;;
  kwok) build_go_install kwok "$KWOK_VERSION" sigs.k8s.io/kwok/cmd/kwok; install_kwok_stages ;;
  helm) build_go_install helm "$HELM_VERSION" helm.sh/helm/v4/cmd/helm "-X helm.sh/helm/v4/internal/version.version=$HELM_VERSION" ;;
  kustomize) build_go_install kustomize "$KUSTOMIZE_VERSION" sigs.k8s.io/kustomize/kustomize/v5 ;;
  sops) build_sops ;;
  age) build_age ;;
  cosign) build_cosign ;;
  notation) build_notation_verify ;;
  all)
    build_go_install helm "$HELM_VERSION" helm.sh/helm/v4/cmd/helm "-X helm.sh/helm/v4/internal/version.version=$HELM_VERSION"
    build_go_install kustomize "$KUSTOMIZE_VERSION" sigs.k8s.io/kustomize/kustomize/v5
    build_sops
    build_age
    build_cosign
    build_notation_verify
    build_go_install kwok "$KWOK_VERSION" sigs.k8s.io/kwok/cmd/kwok
    install_kwok_stages
    build_etcd
    build_kubernetes
    ;;
  *) echo "usage: $0 [all|kubernetes|etcd|kwok|helm|kustomize|sops|age|cosign|notation]" >&2; exit 2 ;;
esac
