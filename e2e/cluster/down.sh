#!/usr/bin/env bash
# Stops the cluster up.sh started and removes what it left on the machine: the processes it recorded (by
# PID), every container and pod sandbox, mounts under the state folder, the pods' cgroups, kube-proxy's and
# the CNI plugins' iptables chains, the bridge, and the sysctl values it changed (put back). The next up.sh
# starts an empty cluster. The logs stay in $KVPOOL_CLUSTER_STATE/logs for a look afterwards; --purge
# removes them too. Safe to run at any time, also when nothing is running or up.sh stopped half-way.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
started_all=$SECONDS
export PATH="$cluster_bin:$api_test_bin:$PATH"
[[ $(id -u) == 0 ]] || fail "down.sh needs root, like up.sh"

# stop NAME: SIGTERM to the recorded PID, SIGKILL after 15 s; only processes up.sh started.
stop() {
  local file="$state_dir/pids/$1.pid" pid
  if pid="$(running_pid "$1")"; then
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 75); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null; echo "cluster:   killed $1 ($pid)"
    else echo "cluster:   stopped $1 ($pid)"; fi
  fi
  rm -f "$file"
}

step "stopping kube-router, kube-proxy, kube-scheduler, kube-controller-manager and kubelet"
for c in kube-router kube-proxy kube-scheduler kube-controller-manager kubelet; do stop "$c"; done
step_done

ctr_() { ctr --address "$containerd_sock" -n k8s.io "$@" 2> >(grep -v "DEPRECATION: The support for cgroup v1" >&2); }
if [[ -S "$containerd_sock" ]] && ctr_ version >/dev/null 2>&1; then
  step "removing every container and pod sandbox"
  tasks=($(ctr_ tasks ls -q 2>/dev/null))
  for t in "${tasks[@]}"; do ctr_ tasks kill -s SIGKILL "$t" >/dev/null 2>&1; done
  # containerd's CRI plugin deletes a task once it has exited; delete what it leaves stopped.
  for _ in $(seq 1 100); do
    running="$(ctr_ tasks ls 2>/dev/null | awk 'NR > 1 && $3 != "STOPPED"' | wc -l)"
    (( running == 0 )) && break
    sleep 0.2
  done
  for t in $(ctr_ tasks ls 2>/dev/null | awk 'NR > 1 && $3 == "STOPPED" {print $1}'); do
    ctr_ tasks delete "$t" >/dev/null 2>&1
  done
  for c in $(ctr_ containers ls -q 2>/dev/null); do ctr_ containers rm "$c" >/dev/null 2>&1; done
  echo "cluster:   ${#tasks[@]} containers and sandboxes removed"
  step_done
fi

step "stopping containerd, kube-apiserver and etcd"
stop containerd
stop kube-apiserver
stop etcd
# A runc shim whose container could not be deleted outlives containerd; it is ours if it serves our socket.
for pid in $(pgrep -f "containerd-shim-runc-v2 -namespace k8s.io .*-address $containerd_sock" 2>/dev/null); do
  kill -KILL "$pid" 2>/dev/null && echo "cluster:   killed leftover shim $pid"
done
step_done

step "unmounting, removing pod cgroups, iptables chains, the bridge; restoring sysctls"
findmnt -rn -o TARGET | grep "^$state_dir/" | sort -r | while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
for controller in /sys/fs/cgroup/*/; do
  [[ -d "${controller}kubepods" ]] && find "${controller}kubepods" -depth -type d -exec rmdir {} + 2>/dev/null
done
[[ -x "$cluster_bin/kube-proxy" ]] && "$cluster_bin/kube-proxy" --cleanup >/dev/null 2>&1
[[ -x "$cluster_bin/kube-router" ]] && "$cluster_bin/kube-router" --cleanup-config >/dev/null 2>&1
for ipt in iptables ip6tables; do
  command -v "$ipt" >/dev/null || continue
  for table in nat filter mangle; do
    chains=($("$ipt" -t "$table" -S 2>/dev/null | awk '/^-N (CNI-|KUBE-)/ {print $2}'))
    (( ${#chains[@]} )) || continue
    # First the jumps into those chains from the built-in ones, then flush, then delete.
    for chain in "${chains[@]}"; do
      "$ipt" -t "$table" -S | awk -v c="$chain" '$1 == "-A" && $0 ~ ("-j " c "( |$)")' | sed 's/^-A /-D /' \
        | while read -r rule; do eval "$ipt -t $table $rule"; done
    done
    for chain in "${chains[@]}"; do "$ipt" -t "$table" -F "$chain" 2>/dev/null; done
    for chain in "${chains[@]}"; do "$ipt" -t "$table" -X "$chain" 2>/dev/null; done
  done
done
# kube-router's ipsets (its --cleanup-config removes them; these are what an interrupted run leaves)
if command -v ipset >/dev/null; then
  for set in $(ipset list -n 2>/dev/null | grep '^KUBE-'); do ipset destroy "$set" 2>/dev/null; done
fi
if ip link show "$bridge" >/dev/null 2>&1; then
  for veth in $(ip -o link show master "$bridge" 2>/dev/null | awk -F'[:@ ]+' '{print $2}'); do ip link delete "$veth" 2>/dev/null; done
  ip link delete "$bridge"
fi
if [[ -f "$state_dir/sysctl.saved" ]]; then
  sysctl -qw $(cat "$state_dir/sysctl.saved") && rm -f "$state_dir/sysctl.saved"
fi
step_done

step "removing the cluster state in $state_dir ($([[ ${1:-} == --purge ]] && echo "logs too" || echo "logs kept"))"
if [[ -d "$state_dir" ]]; then
  left="$(findmnt -rn -o TARGET | grep -c "^$state_dir/" || true)"
  if (( left > 0 )); then
    echo "cluster:   $left mounts are still under $state_dir; leaving the folder in place" >&2
  else
    find "$state_dir" -mindepth 1 -maxdepth 1 ! -name logs -exec rm -rf {} +
    [[ ${1:-} == --purge ]] && rm -rf "$state_dir"
  fi
fi
# Empty folders containerd and the CNI plugins create outside the state folder (left when something uses them).
rmdir /var/lib/cni/results /var/lib/cni /run/containerd/runc/k8s.io /run/containerd/runc /run/containerd/s \
  /run/containerd 2>/dev/null || true
step_done
echo "cluster: down in $((SECONDS - started_all))s"
