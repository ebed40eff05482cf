#!/usr/bin/env bash
# Everything the demo and the tests need on a fresh machine, each step skipped when done:
# npm packages, Debian's redis-server, redis-sentinel, openssl, Alertmanager and promtool, and the control plane + helm built from Go
# modules into a cache outside the repository (scripts/build-toolchain.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '[setup] %s\n' "$*" >&2; }

missing=()
command -v redis-server >/dev/null || [[ -x /usr/bin/redis-server ]] || missing+=(redis-server)
# Sentinel for the Redis failover test (src/dev/redis-sentinel.ts): one primary, one replica, three sentinels.
[[ -x /usr/bin/redis-sentinel ]] || missing+=(redis-sentinel)
command -v openssl >/dev/null || missing+=(openssl)
command -v ss >/dev/null || missing+=(iproute2)
# The local OCI registry (src/dev/oci-registry.ts) and the bcrypt htpasswd file its auth instance reads.
[[ -x /usr/bin/docker-registry ]] || missing+=(docker-registry)
[[ -x /usr/bin/htpasswd ]] || missing+=(apache2-utils)
# Charts from Git (spec.chart.git): the git client, and the tests' SSH server and client.
command -v git >/dev/null || missing+=(git)
[[ -x /usr/sbin/sshd ]] || missing+=(openssh-server)
command -v ssh >/dev/null || missing+=(openssh-client)
# Alertmanager as a notification destination, and promtool to evaluate the chart's alert rules.
[[ -x /usr/bin/prometheus-alertmanager ]] || missing+=(prometheus-alertmanager)
command -v promtool >/dev/null || missing+=(prometheus)
# The release pages' browser tests (docs/web.md): Debian's Chromium and its WebDriver.
[[ -x /usr/bin/chromium ]] || missing+=(chromium)
[[ -x /usr/bin/chromedriver ]] || missing+=(chromium-driver)
# Supply chain (docs/verification.md): gpg for helm provenance and signed Git commits; an HTTP proxy for proxySecretRef.
command -v gpg >/dev/null || missing+=(gnupg)
[[ -x /usr/bin/tinyproxy ]] || missing+=(tinyproxy)
# The CPU hog beside the tests in make test-stress (scripts/test-stress.sh).
command -v stress-ng >/dev/null || missing+=(stress-ng)
if ((${#missing[@]})); then
  say "installing Debian packages: ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  # -q, not -qq: each package's download and set-up shows, so a slow mirror does not look like a hang.
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
  # Debian starts a redis service on 6379, a sentinel on 26379, a registry on 5000, sshd on 22, Prometheus on 9090 and Alertmanager on 9093; the project runs its own on free ports instead.
  for service in redis-server redis-sentinel docker-registry ssh prometheus prometheus-alertmanager prometheus-node-exporter tinyproxy; do
    ($SUDO systemctl disable --now "$service" 2>/dev/null || $SUDO service "$service" stop 2>/dev/null) || true
  done
fi

if [[ ! -d node_modules ]] || [[ package-lock.json -nt node_modules/.package-lock.json ]]; then
  say "installing npm packages"
  # npm ci refuses this lock file (npm 11 records optional platform packages unevenly); install honours it too.
  npm install --no-fund --no-audit
fi

command -v go >/dev/null || { say "Go is needed to build the local Kubernetes control plane and helm"; exit 1; }
say "building (or finding cached) kube-apiserver, controller-manager, scheduler, kubectl, etcd, kwok, helm, kustomize, sops, age, cosign"
bash scripts/build-toolchain.sh all
