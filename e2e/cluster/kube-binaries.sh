#!/usr/bin/env bash
# Provides etcd, kube-apiserver and kubectl of one pinned Kubernetes release in the folder layout that
# io.fabric8:kube-api-test expects: ${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}/k8s/<version>-linux-amd64/.
# No container registry or release download site is reachable on the build machines, so missing
# binaries are compiled from the Go module proxy in throwaway modules generated under the cache dir.
# Idempotent: when the three binaries are present and report the pinned versions it only checks them.
#
# Environment:
#   KUBE_API_TEST_DIR  root folder read by kube-api-test (default: $HOME/.kubeapitest)
#   KVPOOL_CACHE       build cache for the generated Go modules (default: $HOME/.cache/kvpool)
#   KUBE_VERSION       override the pinned release (default: contents of e2e/cluster/kube-version)
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kube_version="${KUBE_VERSION:-$(tr -d '[:space:]' < "$script_dir/kube-version")}"
if [[ ! "$kube_version" =~ ^1\.([0-9]+)\.([0-9]+)$ ]]; then
  echo "kube-binaries: version '$kube_version' is not of the form 1.MINOR.PATCH (check $script_dir/kube-version)" >&2
  exit 2
fi
kube_minor="${BASH_REMATCH[1]}"
staging_version="v0.${kube_minor}.${BASH_REMATCH[2]}"

api_test_dir="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}"
target_dir="$api_test_dir/k8s/${kube_version}-linux-amd64"
build_root="${KVPOOL_CACHE:-$HOME/.cache/kvpool}/kube-binaries/$kube_version"
# k8s.io/kubernetes 1.35 declares "go 1.25.0" in its go.mod.
min_go_minor=25

started_all=$SECONDS
step_started=$SECONDS
step() { step_started=$SECONDS; echo "kube-binaries: $*"; }
step_done() { echo "kube-binaries:   done in $((SECONDS - step_started))s"; }

fail_with_manual_hint() {
  cat >&2 <<MSG
kube-binaries: $1
kube-binaries: cannot provide the Kubernetes $kube_version test binaries automatically.
  Provide them by hand instead: put executable linux-amd64 builds of
    etcd            (the 3.5/3.6 release that Kubernetes $kube_version's go.mod requires)
    kube-apiserver  (v$kube_version)
    kubectl         (v1.$((kube_minor - 1)) to v1.$((kube_minor + 1)))
  into $target_dir/
  (for example from the official release tarballs), then run this script again to verify them.
MSG
  exit 1
}

has_version() { # binary, expected substring of its --version output
  [[ -x "$1" ]] && "$1" --version 2>/dev/null | grep -q -- "$2"
}
kubectl_has_version() {
  [[ -x "$1" ]] && "$1" version --client 2>/dev/null | grep -q -- "v$kube_version"
}

require_go() {
  # Non-login shells (CI runners, cron) may lack the official tarball's install folder on PATH.
  if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
    PATH="$PATH:/usr/local/go/bin"
  fi
  command -v go >/dev/null 2>&1 || fail_with_manual_hint "the Go toolchain (go 1.$min_go_minor or newer) is not on PATH."
  local go_version
  go_version="$(GOTOOLCHAIN=local go env GOVERSION)"
  if [[ ! "$go_version" =~ ^go1\.([0-9]+) ]] || (( BASH_REMATCH[1] < min_go_minor )); then
    fail_with_manual_hint "Go $go_version is too old: building Kubernetes $kube_version needs go1.$min_go_minor or newer."
  fi
}

# The Go commands run with the local toolchain only: no toolchain downloads. Builds pass -p 2 (two cores).
go_in() { (cd "$1" && shift && GOTOOLCHAIN=local GOFLAGS="-mod=mod -buildvcs=false" go "$@"); }

# Path of k8s.io/kubernetes's own go.mod in the module cache (downloaded from the proxy when needed).
upstream_go_mod() {
  local path
  mkdir -p "$build_root"
  # Run outside the generated module, so a half-written go.mod from an interrupted run cannot interfere.
  path="$(cd "$build_root" && GOTOOLCHAIN=local go mod download -json "k8s.io/kubernetes@v$kube_version" \
    | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')" \
    || fail_with_manual_hint "the Go module proxy does not serve k8s.io/kubernetes v$kube_version."
  [[ -f "$path" ]] || fail_with_manual_hint "could not read the go.mod of k8s.io/kubernetes v$kube_version."
  echo "$path"
}

# A module of our own that requires k8s.io/kubernetes. The replace directives inside k8s.io/kubernetes's
# go.mod point at its staging folders and are ignored for dependencies, so every k8s.io/* staging module is
# pinned here to the matching v0.MINOR.PATCH release.
prepare_kubernetes_module() {
  local dir="$build_root/kubernetes-module"
  if [[ -f "$dir/go.sum" && -f "$dir/.complete" ]]; then return; fi
  step "resolving k8s.io/kubernetes v$kube_version and its staging modules ($staging_version) in $dir"
  local upstream_mod
  upstream_mod="$(upstream_go_mod)"
  mkdir -p "$dir"
  {
    echo "module kvpool.local/kube-binaries"
    echo
    echo "go 1.$min_go_minor"
    echo
    echo "require k8s.io/kubernetes v$kube_version"
    echo
    echo "replace ("
    sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/src/k8s.io/.*$#\t\1 => \1 '"$staging_version"'#p' "$upstream_mod"
    echo ")"
  } > "$dir/go.mod"
  cat > "$dir/tools.go" <<'GO'
//go:build tools

// Package tools only records the commands this throwaway module builds, so that go mod tidy keeps them.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
  go_in "$dir" mod tidy || fail_with_manual_hint "go mod tidy failed for k8s.io/kubernetes v$kube_version (see above)."
  touch "$dir/.complete"
  step_done
}

# Version variables that the Kubernetes release build sets; without them the binaries report v0.0.0-master.
kubernetes_ldflags() {
  local flags="-s -w" pkg
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $pkg.gitVersion=v$kube_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$kube_minor"
    flags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  echo "$flags"
}

build_kubernetes_command() { # command name
  local dir="$build_root/kubernetes-module" out="$build_root/bin/$1"
  step "building $1 v$kube_version (go build -p 2)"
  mkdir -p "$build_root/bin"
  go_in "$dir" build -p 2 -trimpath -ldflags "$(kubernetes_ldflags)" -o "$out.tmp" "k8s.io/kubernetes/cmd/$1" \
    || fail_with_manual_hint "go build k8s.io/kubernetes/cmd/$1 failed (see above)."
  mv -f "$out.tmp" "$out"
  step_done
}

# The etcd release that Kubernetes expects: the go.etcd.io/etcd/server/v3 version its own go.mod requires.
etcd_version_for_kubernetes() {
  local upstream_mod
  upstream_mod="$(upstream_go_mod)"
  sed -n 's#^[[:space:]]*go.etcd.io/etcd/server/v3 \(v3\.[0-9]*\.[0-9]*\).*$#\1#p' "$upstream_mod" | head -n 1
}

build_etcd() { # etcd version (v3.x.y)
  local version="$1" dir="$build_root/etcd-module" out="$build_root/bin/etcd"
  if [[ ! -f "$dir/.complete" ]]; then
    step "resolving go.etcd.io/etcd/server/v3 $version in $dir"
    mkdir -p "$dir"
    printf 'module kvpool.local/etcd-binary\n\ngo 1.%s\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$min_go_minor" "$version" > "$dir/go.mod"
    cat > "$dir/tools.go" <<'GO'
//go:build tools

// Package tools only records the command this throwaway module builds, so that go mod tidy keeps it.
package tools

import _ "go.etcd.io/etcd/server/v3"
GO
    go_in "$dir" mod tidy || fail_with_manual_hint "go mod tidy failed for go.etcd.io/etcd/server/v3 $version (see above)."
    touch "$dir/.complete"
    step_done
  fi
  step "building etcd $version (go build -p 2)"
  mkdir -p "$build_root/bin"
  go_in "$dir" build -p 2 -trimpath -ldflags "-s -w" -o "$out.tmp" go.etcd.io/etcd/server/v3 \
    || fail_with_manual_hint "go build go.etcd.io/etcd/server/v3 $version failed (see above)."
  mv -f "$out.tmp" "$out"
  step_done
}

install_binary() { # name
  mkdir -p "$target_dir"
  cp -f "$build_root/bin/$1" "$target_dir/.$1.tmp"
  chmod 0755 "$target_dir/.$1.tmp"
  mv -f "$target_dir/.$1.tmp" "$target_dir/$1"
  echo "kube-binaries: installed $target_dir/$1"
}

# kube-api-test starts etcd with client and peer URLs on 0.0.0.0 and offers no way to change them; tests here
# must listen on loopback only. kube-api-test runs "<dir>/etcd", so that is a wrapper which rewrites those
# URLs to 127.0.0.1 and execs the real binary (same process, so stopping it stops etcd).
etcd_wrapper_marker="kvpool: etcd loopback wrapper"
install_etcd_wrapper() {
  local wrapper
  wrapper="$(cat <<'WRAPPER'
#!/usr/bin/env bash
# kvpool: etcd loopback wrapper, written by e2e/cluster/kube-binaries.sh.
# kube-api-test passes http://0.0.0.0:<port> URLs; serve them on 127.0.0.1 only.
exec "$(dirname "$0")/etcd.bin" "${@//0.0.0.0/127.0.0.1}"
WRAPPER
)"
  if [[ -f "$target_dir/etcd" && "$(cat "$target_dir/etcd")" == "$wrapper" ]]; then return; fi
  printf '%s\n' "$wrapper" > "$target_dir/.etcd.tmp"
  chmod 0755 "$target_dir/.etcd.tmp"
  mv -f "$target_dir/.etcd.tmp" "$target_dir/etcd"
  echo "kube-binaries: installed $target_dir/etcd (loopback wrapper around etcd.bin)"
}

echo "kube-binaries: Kubernetes v$kube_version into $target_dir"

if ! has_version "$target_dir/kube-apiserver" "v$kube_version"; then
  if ! has_version "$build_root/bin/kube-apiserver" "v$kube_version"; then
    require_go
    prepare_kubernetes_module
    build_kubernetes_command kube-apiserver
  fi
  install_binary kube-apiserver
fi

if ! kubectl_has_version "$target_dir/kubectl"; then
  if ! kubectl_has_version "$build_root/bin/kubectl"; then
    require_go
    prepare_kubernetes_module
    build_kubernetes_command kubectl
  fi
  install_binary kubectl
fi

# A hand-provided etcd (a real binary where the wrapper belongs) becomes the wrapped binary.
if [[ -f "$target_dir/etcd" ]] && ! grep -q "$etcd_wrapper_marker" "$target_dir/etcd"; then
  mv -f "$target_dir/etcd" "$target_dir/etcd.bin"
fi
if [[ ! -x "$target_dir/etcd.bin" ]] || ! "$target_dir/etcd.bin" --version >/dev/null 2>&1; then
  if [[ ! -x "$build_root/bin/etcd" ]]; then
    require_go
    prepare_kubernetes_module
    etcd_version="$(etcd_version_for_kubernetes)"
    [[ -n "$etcd_version" ]] || fail_with_manual_hint "could not find the etcd version that k8s.io/kubernetes v$kube_version requires."
    build_etcd "$etcd_version"
  fi
  mkdir -p "$target_dir"
  cp -f "$build_root/bin/etcd" "$target_dir/.etcd.bin.tmp"
  chmod 0755 "$target_dir/.etcd.bin.tmp"
  mv -f "$target_dir/.etcd.bin.tmp" "$target_dir/etcd.bin"
  echo "kube-binaries: installed $target_dir/etcd.bin"
fi
install_etcd_wrapper

echo "kube-binaries: $("$target_dir/kube-apiserver" --version)"
echo "kube-binaries: kubectl $("$target_dir/kubectl" version --client 2>/dev/null | sed -n 's/^Client Version: //p')"
echo "kube-binaries: etcd $("$target_dir/etcd.bin" --version | sed -n 's/^etcd Version: //p')"
echo "kube-binaries: KUBE_VERSION=$kube_version ready in $((SECONDS - started_all))s"
