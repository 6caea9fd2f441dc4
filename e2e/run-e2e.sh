#!/usr/bin/env bash
# Runs kvpool's end-to-end suite on a real cluster, alone (scripts/test-all.sh runs it as its last stage):
# builds the jars and the two images (module images/; plus the data-plane release tags of the upgrade scenarios),
# then runs KvPoolClusterIT, which picks a cluster
# (KVPOOL_E2E_KUBECONFIG or KUBECONFIG, else K3s in Docker, else the local cluster of e2e/cluster/up.sh),
# installs kvpool with the Helm chart and runs the scenarios. The local cluster is always torn down at the
# end, also when the suite fails or is interrupted.
#
#   e2e/run-e2e.sh                                   # as root on Linux: the local cluster
#   KVPOOL_E2E_KUBECONFIG=~/.kube/config e2e/run-e2e.sh   # a cluster of yours that has the kvpool images
#   e2e/run-e2e.sh '-Dit.test=KvPoolClusterIT#operatorInstalledWithTheChartBecomesAvailable+tcpPoolBecomesReady'
#                                                    # extra Maven arguments are passed on (scenarios run in order;
#                                                    # one whose prerequisite did not run is skipped)
#
# The log shows each stage's duration, the cluster source, each scenario's duration and measurements, and
# the captured `kubectl get kvcachepools -o wide`. A failed scenario's diagnostics are also written to
# e2e/target/e2e-diagnostics/.
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
stage() {
  local name=$1; shift
  local t=$SECONDS
  echo "==> e2e: $name"
  "$@"
  echo "<== e2e: $name ($((SECONDS - t)) s)"
}

uses_local_cluster() {
  case "${KVPOOL_E2E_CLUSTER:-}" in
    local) return 0 ;;
    kubeconfig|k3s) return 1 ;;
  esac
  [[ -z "${KVPOOL_E2E_KUBECONFIG:-}" && ( -z "${KUBECONFIG:-}" || "${KUBECONFIG}" == /dev/null ) ]] || return 1
  [[ -z "${DOCKER_HOST:-}" && ! -S /var/run/docker.sock ]]
}

if uses_local_cluster; then
  # The suite stops the cluster itself (and from a JVM shutdown hook); this catches a JVM that was killed.
  trap 'echo "==> e2e: making sure the local cluster is down"; bash e2e/cluster/down.sh >/dev/null 2>&1 || true' EXIT
  stage "local cluster: kubelet, controller-manager, scheduler, kube-proxy, CoreDNS (Go module proxy)" \
    bash e2e/cluster/node-binaries.sh
  stage "local cluster: containerd, runc, CNI plugins, iptables (Debian)" bash e2e/cluster/host-packages.sh
fi

# -DskipTests skips every other module's tests (scripts/test-all.sh has run them); the e2e-cluster profile
# runs its failsafe suite regardless. The images are (re)built on the way (warm: seconds).
stage "images and the suite on a real cluster" \
  ./mvnw -B -ntp -pl e2e -am verify -Pe2e-cluster -DskipTests "$@"
echo "e2e: done in $((SECONDS - started)) s"
