#!/usr/bin/env bash
# Runs every kvpool test on this machine, installing first what a fresh machine lacks.
# Order: fast and local first, then the suites that need a real kube-apiserver.
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
step() {
  local name=$1; shift
  local t=$SECONDS
  echo "==> $name"
  "$@"
  echo "<== $name ($((SECONDS - t)) s)"
}

# Go (>= 1.25, for kube-apiserver) is checked by e2e/cluster/kube-binaries.sh, which says what to do:
# Debian 12's golang-go is too old to help.
need_tools() {
  local missing=()
  for tool in java gcc make; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing missing tools: ${missing[*]}"
    local pkgs=()
    for tool in "${missing[@]}"; do
      case $tool in
        java) pkgs+=(openjdk-17-jdk-headless) ;;
        gcc|make) pkgs+=(build-essential) ;;
      esac
    done
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${pkgs[@]}"
  fi
}

step "tools" need_tools
step "kube-apiserver, etcd and kubectl for the operator tests" bash e2e/cluster/kube-binaries.sh
step "native C tests under AddressSanitizer and UBSan" make -C native sanitize
step "build and every Java test (unit, integration, real API server)" ./mvnw -B -ntp verify
echo "all kvpool tests passed in $((SECONDS - started)) s"
