#!/usr/bin/env bash
# Runs every kvpool test on this machine, installing first what a fresh machine lacks.
# Order: fast and local first, then the suites that need a real kube-apiserver, last the end-to-end suite on a
# real cluster whose pods run kvpool's images (e2e/run-e2e.sh; it starts and always stops its cluster).
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
# The machine's room, printed first and again when a stage fails: a full disk or little memory explains many failures.
machine() {
  echo "machine: $(nproc) cores, $(awk '/MemAvailable/ {printf "%.1f", $2 / 1048576}' /proc/meminfo) GiB memory available;" \
    "free disk: $(df -h --output=avail,target . /var/tmp "$HOME" | tail -n +2 | sort -u -k2 | awk '{printf "%s on %s  ", $1, $2}')"
}
stage=""
trap 'rc=$?; if ((rc != 0)); then echo "!!! kvpool tests failed in stage \"$stage\" (exit code $rc) after $((SECONDS - started)) s"; machine; fi' EXIT
machine
step() {
  local name=$1; shift
  local t=$SECONDS
  stage=$name
  echo "==> $name"
  "$@"
  echo "<== $name ($((SECONDS - t)) s)"
}

# Go (>= 1.25, for kube-apiserver) is checked by e2e/cluster/kube-binaries.sh, which says what to do:
# Debian 12's golang-go is too old to help.
need_tools() {
  local missing=()
  for tool in java gcc make python3 memcached fio; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing missing tools: ${missing[*]}"
    local pkgs=()
    for tool in "${missing[@]}"; do
      case $tool in
        java) pkgs+=(openjdk-17-jdk-headless) ;;
        gcc|make) pkgs+=(build-essential) ;;
        python3) pkgs+=(python3 python3-venv python3-pip) ;;
        memcached) pkgs+=(memcached) ;; # a real peer for the benchmark suite's tests
        fio) pkgs+=(fio) ;; # the disk's O_DIRECT read limit beside the disk-tier workload's test
      esac
    done
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${pkgs[@]}"
  fi
}

step "tools" need_tools
step "kube-apiserver, etcd and kubectl for the operator tests" bash e2e/cluster/kube-binaries.sh
step "native C tests under AddressSanitizer and UBSan" make -C native sanitize
# Two modules at a time (-T 2): the operator's tests run beside the data plane's benchmarks and soaks; the reactor still
# orders every module after what it uses. The tests are CPU-bound on 2 cores, so each runs slower beside another, but the
# stage took 1,891 s against 2,103 s one module at a time (.ci/run on the 2-core VM, 2026-11-28).
step "build and every Java test (unit, integration, real API server), and the images" ./mvnw -B -ntp -T 2 verify

# The Python client's tests start their own local pools with ./kvpool (built by the stage above), in a venv
# under target/ so the machine's Python stays untouched; pytest-timeout bounds every test. Two pytest-xdist workers,
# each taking whole files (a file's pools are module fixtures): the tests mostly wait on pools and deadlines, so two
# run in about two thirds of the time of one (pytest 311 s -> 192 s in .ci/run on a 2-core machine, 2026-11-27).
python_client_tests() {
  local venv=data-plane/python/target/venv
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" || { rm -rf "$venv"; apt-get update -q && DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q python3-venv && python3 -m venv "$venv"; }
  fi
  rm -rf data-plane/python/build  # setuptools' in-tree build folder would keep files deleted from the sources
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "./data-plane/python[fast,test]" numpy
  # the pools the tests start compile with C1 only, as the Java suites' do (the root pom says why)
  (cd data-plane/python && KVPOOL_CHILD_EXTRA_JAVA_OPTS=-XX:TieredStopAtLevel=1 target/venv/bin/python -m pytest -p no:cacheprovider --timeout 300 -q -rfEs --durations=12 -n 2 --dist loadfile tests)
}
step "Python client tests against local pools" python_client_tests
step "end-to-end suite on a real cluster (e2e/run-e2e.sh)" bash e2e/run-e2e.sh
echo "all kvpool tests passed in $((SECONDS - started)) s"
