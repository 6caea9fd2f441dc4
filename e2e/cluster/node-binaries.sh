#!/usr/bin/env bash
# Builds what a node of the e2e cluster runs besides the API server: kubelet, kube-controller-manager,
# kube-scheduler and kube-proxy of the pinned Kubernetes release, CoreDNS, kube-router (NetworkPolicies) and the
# pod sandbox's pause program, all from the Go module proxy (no release download site or registry is reachable here).
# kube-apiserver, kubectl and etcd come from kube-binaries.sh, which this script runs first.
#
# Output: ${KVPOOL_CACHE:-$HOME/.cache/kvpool}/cluster/<version>/bin/. Idempotent: a binary that is
# present and reports the pinned version is kept, so a warm run takes about a second.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
started_all=$SECONDS

bash "$cluster_scripts/kube-binaries.sh" | sed -u 's/^/  /'

has_kube_version() { [[ -x "$cluster_bin/$1" ]] && "$cluster_bin/$1" --version 2>/dev/null | grep -q "v$kube_version\$"; }

# Our own module requiring k8s.io/kubernetes; the staging modules are pinned to v0.MINOR.PATCH because
# the replace directives inside k8s.io/kubernetes's go.mod point at its own folders (ignored for a dependency).
prepare_kubernetes_module() {
  local dir="$build_root/kubernetes-module"
  [[ -f "$dir/.complete" ]] && return
  step "resolving k8s.io/kubernetes v$kube_version with its staging modules at $staging_version"
  mkdir -p "$dir"
  local upstream
  upstream="$(cd "$build_root" && GOTOOLCHAIN=local go mod download -json "k8s.io/kubernetes@v$kube_version" \
    | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
  [[ -f "$upstream" ]] || fail "the Go module proxy does not serve k8s.io/kubernetes v$kube_version"
  {
    printf 'module kvpool.local/cluster-binaries\n\ngo 1.%s\n\nrequire k8s.io/kubernetes v%s\n\nreplace (\n' \
      "$min_go_minor" "$kube_version"
    sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/src/k8s.io/.*$#\t\1 => \1 '"$staging_version"'#p' "$upstream"
    echo ")"
  } > "$dir/go.mod"
  cat > "$dir/tools.go" <<'GO'
//go:build tools

// Package tools records the commands this generated module builds, so that go mod tidy keeps them.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
GO
  go_in "$dir" mod tidy || fail "go mod tidy failed for k8s.io/kubernetes v$kube_version"
  touch "$dir/.complete"
  step_done
}

build_kubernetes_commands() {
  local missing=() c
  for c in kubelet kube-controller-manager kube-scheduler kube-proxy; do
    has_kube_version "$c" || missing+=("$c")
  done
  (( ${#missing[@]} )) || return 0
  require_go
  prepare_kubernetes_module
  # The variables the release build sets; without them the binaries report v0.0.0-master.
  local ldflags="-s -w" pkg pkgs=()
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=v$kube_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$kube_minor"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  for c in "${missing[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
  step "building ${missing[*]} v$kube_version (one go build -p 2; the API server's packages are reused from Go's build cache)"
  local out="$build_root/bin.tmp"
  rm -rf "$out"; mkdir -p "$out" "$cluster_bin"
  go_in "$build_root/kubernetes-module" build -p 2 -trimpath -ldflags "$ldflags" -o "$out/" "${pkgs[@]}" \
    || fail "go build of ${missing[*]} failed (see above)"
  mv -f "$out"/* "$cluster_bin/"; rmdir "$out"
  step_done
}

# CoreDNS with only the plugins the cluster's Corefile uses (kubernetes, cache, errors, health, ready, log).
build_coredns() {
  if [[ -x "$cluster_bin/coredns" ]] && "$cluster_bin/coredns" -version 2>/dev/null | grep -q "CoreDNS-${coredns_version#v}\$"; then
    return
  fi
  require_go
  local dir="$build_root/coredns-module"
  step "building CoreDNS $coredns_version (kubernetes, cache, errors, health, ready and log plugins)"
  mkdir -p "$dir" "$cluster_bin"
  printf 'module kvpool.local/coredns\n\ngo 1.%s\n\nrequire github.com/coredns/coredns %s\n' "$min_go_minor" "$coredns_version" > "$dir/go.mod"
  cat > "$dir/main.go" <<'GO'
// CoreDNS with the plugins the e2e cluster's Corefile uses, in the order CoreDNS runs them.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

func init() {
	dnsserver.Directives = []string{"errors", "log", "health", "ready", "cache", "kubernetes"}
}

func main() { coremain.Run() }
GO
  rm -f "$dir/go.sum"
  go_in "$dir" mod tidy || fail "go mod tidy failed for github.com/coredns/coredns $coredns_version"
  CGO_ENABLED=0 go_in "$dir" build -p 2 -trimpath -ldflags "-s -w" -o "$cluster_bin/coredns.tmp" . \
    || fail "go build of CoreDNS failed (see above)"
  mv -f "$cluster_bin/coredns.tmp" "$cluster_bin/coredns"
  step_done
}

# kube-router, for its network policy controller only: the bridge CNI does not enforce NetworkPolicies, and
# kvpool's pools each come with one. It programs iptables and ipsets from the policies, pods and namespaces.
# The checksum database does not know this module (its lookup answers 404), so it is not asked for it; the
# module proxy's copy is what is built.
build_kube_router() {
  if [[ -x "$cluster_bin/kube-router" ]] && "$cluster_bin/kube-router" --version 2>/dev/null \
      | grep -q "${kube_router_version}"; then
    return
  fi
  require_go
  local dir="$build_root/kube-router-module" pkg=github.com/cloudnativelabs/kube-router/v2
  step "building kube-router $kube_router_version (network policy controller)"
  mkdir -p "$dir" "$cluster_bin"
  printf 'module kvpool.local/kube-router\n\ngo 1.%s\n\nrequire %s %s\n' "$min_go_minor" "$pkg" \
    "$kube_router_version" > "$dir/go.mod"
  printf '//go:build tools\n\npackage tools\n\nimport _ "%s/cmd/kube-router"\n' "$pkg" > "$dir/tools.go"
  rm -f "$dir/go.sum"
  GONOSUMDB=github.com/cloudnativelabs/kube-router go_in "$dir" mod tidy \
    || fail "go mod tidy failed for $pkg $kube_router_version"
  GONOSUMDB=github.com/cloudnativelabs/kube-router go_in "$dir" build -p 2 -trimpath \
    -ldflags "-s -w -X $pkg/pkg/version.Version=$kube_router_version" -o "$cluster_bin/kube-router.tmp" \
    "$pkg/cmd/kube-router" || fail "go build of kube-router failed (see above)"
  mv -f "$cluster_bin/kube-router.tmp" "$cluster_bin/kube-router"
  step_done
}

# The pod sandbox's PID 1 (source next to this script); static, so its image needs nothing else.
build_pause() {
  local src="$cluster_scripts/pause"
  if [[ -x "$cluster_bin/pause" && ! "$src/main.go" -nt "$cluster_bin/pause" ]]; then return; fi
  require_go
  step "building pause"
  mkdir -p "$cluster_bin"
  CGO_ENABLED=0 go_in "$src" build -trimpath -ldflags "-s -w" -o "$cluster_bin/pause" . || fail "go build of pause failed"
  step_done
}

build_kubernetes_commands
build_coredns
build_kube_router
build_pause
for c in kubelet kube-controller-manager kube-scheduler kube-proxy; do
  echo "cluster: $c $("$cluster_bin/$c" --version | awk '{print $NF}')"
done
echo "cluster: $("$cluster_bin/coredns" -version | head -n 1)"
echo "cluster: kube-router $("$cluster_bin/kube-router" --version 2>&1 | head -n 1)"
echo "cluster: node binaries ready in $cluster_bin ($((SECONDS - started_all))s)"
