#!/usr/bin/env bash
# Everything the demo and the tests need on a fresh machine, each step skipped when done:
# npm packages, Debian's redis-server and openssl, and the control plane + helm built from Go
# modules into a cache outside the repository (scripts/build-toolchain.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '[setup] %s\n' "$*" >&2; }

missing=()
command -v redis-server >/dev/null || [[ -x /usr/bin/redis-server ]] || missing+=(redis-server)
command -v openssl >/dev/null || missing+=(openssl)
command -v ss >/dev/null || missing+=(iproute2)
if ((${#missing[@]})); then
  say "installing Debian packages: ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  # Debian starts a redis service on 6379; the project runs its own on free ports instead.
  ($SUDO systemctl disable --now redis-server 2>/dev/null || $SUDO service redis-server stop 2>/dev/null) || true
fi

if [[ ! -d node_modules ]] || [[ package-lock.json -nt node_modules/.package-lock.json ]]; then
  say "installing npm packages"
  # npm ci refuses this lock file (npm 11 records optional platform packages unevenly); install honours it too.
  npm install --no-fund --no-audit
fi

command -v go >/dev/null || { say "Go is needed to build the local Kubernetes control plane and helm"; exit 1; }
say "building (or finding cached) kube-apiserver, controller-manager, scheduler, kubectl, etcd, kwok, helm"
bash scripts/build-toolchain.sh all
