# Sourced by the e2e/cluster scripts: the pinned versions, where things are kept, and small helpers.
# Nothing here starts or changes anything.

cluster_scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kube_version="${KUBE_VERSION:-$(tr -d '[:space:]' < "$cluster_scripts/kube-version")}"
if [[ ! "$kube_version" =~ ^1\.([0-9]+)\.([0-9]+)$ ]]; then
  echo "cluster: version '$kube_version' is not of the form 1.MINOR.PATCH (check $cluster_scripts/kube-version)" >&2
  exit 2
fi
kube_minor="${BASH_REMATCH[1]}"
staging_version="v0.${kube_minor}.${BASH_REMATCH[2]}"
coredns_version="${COREDNS_VERSION:-v1.14.7}"
# The NetworkPolicy enforcer (its firewall controller only; the bridge CNI and kube-proxy stay). v2.1.0 is the
# newest release the Go module proxy serves here.
kube_router_version="${KUBE_ROUTER_VERSION:-v2.1.0}"
# k8s.io/kubernetes 1.35 and CoreDNS 1.14.7 declare "go 1.25.0" in their go.mod.
min_go_minor=25

# Built binaries and system images: a cache outside the repository, shared with kube-binaries.sh.
cache_root="${KVPOOL_CACHE:-$HOME/.cache/kvpool}"
build_root="$cache_root/cluster/$kube_version"
cluster_bin="$build_root/bin"
system_images="$build_root/images"
# kube-apiserver, kubectl and etcd come from kube-binaries.sh (the operator tests use them too).
api_test_bin="${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}/k8s/${kube_version}-linux-amd64"

# The running cluster's state (etcd data, containerd root, kubelet root, PKI, logs); down.sh --purge removes it.
state_dir="${KVPOOL_CLUSTER_STATE:-/var/tmp/kvpool-cluster}"
node_name="${KVPOOL_NODE_NAME:-kvpool-e2e}"
# The node IP is the gateway address of a bridge the cluster owns: kubelet refuses a loopback node IP,
# Endpoints refuse loopback addresses, and pods reach the API server through the kubernetes Service.
node_ip=10.244.0.1
pod_cidr=10.244.0.0/24
bridge=kvpool-br0
service_cidr=10.96.0.0/16
api_service_ip=10.96.0.1
dns_service_ip=10.96.0.10
api_port=6443
etcd_port=12379
etcd_peer_port=12380
admin_kubeconfig="$state_dir/admin.kubeconfig"
containerd_sock="$state_dir/containerd/containerd.sock"
# The cluster's own images (system-images.sh); containerd names them docker.io/<reference>.
pause_image=kvpool-e2e/pause:1
coredns_image="kvpool-e2e/coredns:${coredns_version#v}"

# step "what": prints the step; step_done prints how long it took.
_step_started=$SECONDS
step() { _step_started=$SECONDS; echo "cluster: $*"; }
step_done() { echo "cluster:   done in $((SECONDS - _step_started))s"; }
fail() { echo "cluster: $*" >&2; exit 1; }
# A script run with set -e names the command that stopped it (whoever runs it sees only an exit code), then runs
# the functions listed in $on_stop (up.sh shows its components' logs there). errtrace (-E) reaches failures inside
# functions and subshells; a command substitution runs without errexit, so a failure there stops nothing and is
# not reported.
on_stop=()
stopped() {
  local rc=$1 line=$2 command=$3
  [[ $- == *e* ]] || return 0
  echo "cluster: $(basename "$0") stopped at line $line (exit code $rc): $command" >&2
  (( BASH_SUBSHELL == 0 )) || return 0
  local hook; for hook in "${on_stop[@]}"; do "$hook" >&2 || true; done
  on_stop=()
}
if [[ $- == *e* ]]; then
  set -E
  trap 'stopped $? $LINENO "$BASH_COMMAND"' ERR
fi

# running_pid NAME: the PID up.sh recorded for component NAME, when that process still runs and is NAME (after a
# reboot or a killed run the recorded PID may belong to another program by now). Fails otherwise.
running_pid() {
  local file="$state_dir/pids/$1.pid" pid
  [[ -f $file ]] || return 1
  pid="$(cat "$file")"
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  [[ "$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)" == *"$1"* ]] || return 1
  echo "$pid"
}

# Go for the builds: the local toolchain only (never downloaded), 2 parallel compiles (2-core machines).
require_go() {
  if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
    PATH="$PATH:/usr/local/go/bin"
  fi
  command -v go >/dev/null 2>&1 || fail "the Go toolchain (go 1.$min_go_minor or newer) is not on PATH."
  local go_version
  go_version="$(GOTOOLCHAIN=local go env GOVERSION)"
  if [[ ! "$go_version" =~ ^go1\.([0-9]+) ]] || (( BASH_REMATCH[1] < min_go_minor )); then
    fail "Go $go_version is too old: building Kubernetes $kube_version needs go1.$min_go_minor or newer."
  fi
}
go_in() { (cd "$1" && shift && GOTOOLCHAIN=local GOFLAGS="-mod=mod -buildvcs=false" go "$@"); }

# Polls a command until it succeeds or the deadline passes: wait_until SECONDS "what" command...
wait_until() {
  local limit=$1 what=$2; shift 2
  local end=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    (( SECONDS < end )) || { echo "cluster: timed out after ${limit}s waiting for $what" >&2; return 1; }
    sleep 0.5
  done
}
