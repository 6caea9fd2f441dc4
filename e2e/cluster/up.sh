#!/usr/bin/env bash
# Starts a single-node Kubernetes cluster on this Linux machine, whose kubelet really runs pods:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, containerd (Debian, CRI plugin), kubelet,
# kube-proxy (iptables), a bridge CNI network and CoreDNS. Binaries come from node-binaries.sh (run first),
# packages from host-packages.sh (run here when missing). Needs root (cgroups, network, mounts).
#
# Addresses: the node IP is 10.244.0.1, the gateway of the bridge kvpool-br0 this script creates (pods get
# 10.244.0.0/24). Only kube-apiserver (:6443) and kubelet (:10250) listen there; everything else listens on
# 127.0.0.1, and nothing leaves the machine. State, logs and certificates are in $KVPOOL_CLUSTER_STATE
# (default /var/tmp/kvpool-cluster); down.sh stops everything and cleans up.
#
# Prints each step with its duration; ends with the admin kubeconfig to use:
#   export KUBECONFIG=/var/tmp/kvpool-cluster/admin.kubeconfig
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
started_all=$SECONDS
export PATH="$cluster_bin:$api_test_bin:$PATH"

[[ $(id -u) == 0 ]] || fail "the local cluster needs root (cgroups, a bridge, iptables, mounts)"
for b in kubelet kube-controller-manager kube-scheduler kube-proxy kube-router coredns pause; do
  [[ -x "$cluster_bin/$b" ]] || fail "$cluster_bin/$b is missing: run e2e/cluster/node-binaries.sh first"
done
for b in kube-apiserver kubectl etcd.bin; do
  [[ -x "$api_test_bin/$b" ]] || fail "$api_test_bin/$b is missing: run e2e/cluster/kube-binaries.sh first"
done
bash "$cluster_scripts/host-packages.sh"
bash "$cluster_scripts/system-images.sh"

logs="$state_dir/logs"; pki="$state_dir/pki"
# When a step fails, the end of each component's log is shown with the failed command.
show_logs() {
  local f
  for f in "$logs"/*.log; do
    [[ -s $f ]] || continue
    echo "cluster: --- the last 20 lines of $f"
    tail -n 20 "$f" | cut -c 1-400
  done
}
on_stop=(show_logs)
is_running() { running_pid "$1" >/dev/null; }
components=(containerd etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kube-router)
any_running() { local c; for c in "${components[@]}"; do is_running "$c" && return 0; done; return 1; }
# A fresh start: whatever a killed earlier run left (its etcd data, mounts, containers, the bridge, iptables chains)
# would make this cluster half-work, so down.sh clears it first; the previous run's logs are kept in logs.previous.
if ! any_running; then
  if [[ -d "$state_dir" ]] || ip link show "$bridge" >/dev/null 2>&1; then
    step "clearing what an earlier run left in $state_dir (down.sh)"
    bash "$cluster_scripts/down.sh" | sed 's/^/  /'
    step_done
  fi
  if [[ -d "$logs" ]]; then rm -rf "$state_dir/logs.previous"; mv "$logs" "$state_dir/logs.previous"; fi
fi
mkdir -p "$state_dir"/{pids,logs,cni/net.d,containerd,kubelet,etcd}
# start NAME COMMAND...: in its own session (so it outlives this script), output to logs/NAME.log, PID recorded.
start() {
  local name=$1; shift
  if is_running "$name"; then echo "cluster:   $name already running (pid $(running_pid "$name"))"; return; fi
  setsid "$@" >>"$logs/$name.log" 2>&1 </dev/null &
  echo $! > "$state_dir/pids/$name.pid"
  echo "cluster:   started $name (pid $!), log $logs/$name.log"
}
# Another cluster (or anything else) on the node address would make this one half-work: refuse early.
port_taken_by_other() { # port
  local pid
  pid="$(ss -Hltnp "sport = :$1" 2>/dev/null | grep -o 'pid=[0-9]*' | head -n 1 | cut -d= -f2 || true)"
  [[ -n "$pid" ]] || return 1
  local name; for name in kube-apiserver kubelet etcd; do
    [[ "$(running_pid "$name" || true)" == "$pid" ]] && return 1
  done
  return 0
}
for port in "$api_port" 10250 "$etcd_port"; do
  ! port_taken_by_other "$port" || fail "port $port is in use by another process ($(ss -Hltnp "sport = :$port" | head -n 1)); is another cluster running? Stop it first."
done

step "network: bridge $bridge ($node_ip/24), forwarding, CNI config"
ip link show "$bridge" >/dev/null 2>&1 || ip link add "$bridge" type bridge
# (no `| grep -q` here: under pipefail a grep that stops early can fail the pipeline, and a second add fails)
[[ "$(ip -4 addr show dev "$bridge")" == *"inet $node_ip/"* ]] || ip addr add "$node_ip/24" dev "$bridge"
ip link set "$bridge" up
# The values kubelet and the network need; down.sh puts the recorded ones back.
sysctls=(net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1 vm.overcommit_memory=1 kernel.panic=10
  kernel.panic_on_oops=1 vm.panic_on_oom=0)
if [[ ! -f "$state_dir/sysctl.saved" ]]; then
  for s in "${sysctls[@]}"; do echo "${s%%=*}=$(sysctl -n "${s%%=*}")"; done > "$state_dir/sysctl.saved"
fi
sysctl -qw "${sysctls[@]}"
cat > "$state_dir/cni/net.d/10-kvpool-e2e.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "kvpool-e2e",
  "plugins": [
    {"type": "bridge", "bridge": "$bridge", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "$pod_cidr", "gateway": "$node_ip"}]],
              "routes": [{"dst": "0.0.0.0/0"}], "dataDir": "$state_dir/cni/ipam"}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
step_done

step "certificates and kubeconfigs (openssl, in $pki)"
make_pki() {
  mkdir -p "$pki"
  [[ -f "$pki/.complete" ]] && return
  ( cd "$pki"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -subj "/CN=kvpool-e2e-ca" -days 3650 -out ca.crt 2>/dev/null
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
    # cert NAME CN [ORG] [SANS]: a client certificate, or a serving one when SANs are given.
    cert() {
      local name=$1 cn=$2 org=${3:-} sans=${4:-}
      openssl req -newkey rsa:2048 -nodes -keyout "$name.key" -subj "/CN=$cn${org:+/O=$org}" -out "$name.csr" 2>/dev/null
      { echo "basicConstraints=CA:FALSE"; echo "keyUsage=critical,digitalSignature,keyEncipherment"
        if [[ -n $sans ]]; then echo "extendedKeyUsage=serverAuth,clientAuth"; echo "subjectAltName=$sans"
        else echo "extendedKeyUsage=clientAuth"; fi; } > "$name.ext"
      openssl x509 -req -in "$name.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 -extfile "$name.ext" \
        -out "$name.crt" 2>/dev/null
      rm -f "$name.csr" "$name.ext"
    }
    cert apiserver kube-apiserver "" "DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost,IP:127.0.0.1,IP:$node_ip,IP:$api_service_ip"
    cert kubelet-serving "system:node:$node_name" system:nodes "DNS:$node_name,IP:$node_ip,IP:127.0.0.1"
    cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters
    cert admin kubernetes-admin system:masters
    cert kubelet "system:node:$node_name" system:nodes
    cert controller-manager system:kube-controller-manager
    cert scheduler system:kube-scheduler
    cert kube-proxy system:kube-proxy
    touch .complete )
}
make_pki
for user in admin controller-manager scheduler kubelet kube-proxy; do
  cat > "$state_dir/$user.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: kvpool-e2e, cluster: {server: "https://$node_ip:$api_port", certificate-authority: "$pki/ca.crt"}}]
users: [{name: $user, user: {client-certificate: "$pki/$user.crt", client-key: "$pki/$user.key"}}]
contexts: [{name: kvpool-e2e, context: {cluster: kvpool-e2e, user: $user}}]
current-context: kvpool-e2e
EOF
done
export KUBECONFIG="$admin_kubeconfig"
step_done

step "containerd (Debian $(containerd --version | awk '{print $3}')) and the cluster's images"
cat > "$state_dir/containerd/config.toml" <<EOF
version = 2
root = "$state_dir/containerd/root"
state = "$state_dir/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs"]
[grpc]
  address = "$containerd_sock"
[ttrpc]
  address = "$containerd_sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$state_dir/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "docker.io/$pause_image"
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  # The machine lacks CAP_SYS_RESOURCE: never ask runc to lower an oom_score_adj (every sandbox would fail
  # with "can't get final child's PID from pipe: EOF").
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$state_dir/cni/net.d"
EOF
start containerd containerd --config "$state_dir/containerd/config.toml"
wait_until 60 "containerd" ctr --address "$containerd_sock" version
for image in pause coredns; do
  bash "$cluster_scripts/import-images.sh" "$system_images/$image.tar" >/dev/null
done
step_done

step "etcd and kube-apiserver"
start etcd "$api_test_bin/etcd.bin" --name kvpool-e2e --data-dir "$state_dir/etcd" \
  --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
  --listen-peer-urls "http://127.0.0.1:$etcd_peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer_port" \
  --initial-cluster "kvpool-e2e=http://127.0.0.1:$etcd_peer_port" --unsafe-no-fsync --log-level warn
start kube-apiserver kube-apiserver --etcd-servers "http://127.0.0.1:$etcd_port" \
  --bind-address "$node_ip" --advertise-address "$node_ip" --secure-port "$api_port" \
  --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" --client-ca-file "$pki/ca.crt" \
  --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
  --service-account-issuer https://kubernetes.default.svc.cluster.local \
  --service-cluster-ip-range "$service_cidr" --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction \
  --kubelet-client-certificate "$pki/apiserver-kubelet-client.crt" --kubelet-client-key "$pki/apiserver-kubelet-client.key" \
  --kubelet-preferred-address-types InternalIP --allow-privileged=true --profiling=false
wait_until 120 "kube-apiserver /readyz" kubectl get --raw /readyz
step_done

step "kube-controller-manager, kube-scheduler, kubelet, kube-proxy"
start kube-controller-manager kube-controller-manager --kubeconfig "$state_dir/controller-manager.kubeconfig" \
  --authentication-kubeconfig "$state_dir/controller-manager.kubeconfig" \
  --authorization-kubeconfig "$state_dir/controller-manager.kubeconfig" \
  --bind-address 127.0.0.1 --secure-port 10257 --leader-elect=false --use-service-account-credentials=true \
  --service-account-private-key-file "$pki/sa.key" --root-ca-file "$pki/ca.crt" \
  --cluster-signing-cert-file "$pki/ca.crt" --cluster-signing-key-file "$pki/ca.key" \
  --service-cluster-ip-range "$service_cidr" --profiling=false
start kube-scheduler kube-scheduler --kubeconfig "$state_dir/scheduler.kubeconfig" \
  --authentication-kubeconfig "$state_dir/scheduler.kubeconfig" --authorization-kubeconfig "$state_dir/scheduler.kubeconfig" \
  --bind-address 127.0.0.1 --secure-port 10259 --leader-elect=false --profiling=false
cat > "$state_dir/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# Kubernetes 1.35 refuses cgroup v1 hosts unless told otherwise; this machine has cgroup v1 and no systemd.
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /
cgroupsPerQOS: true
enforceNodeAllocatable: [pods]
failSwapOn: false
# The default (-999) needs CAP_SYS_RESOURCE, which the machine lacks.
oomScoreAdj: 0
containerRuntimeEndpoint: unix://$containerd_sock
address: $node_ip
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
tlsCertFile: $pki/kubelet-serving.crt
tlsPrivateKeyFile: $pki/kubelet-serving.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $pki/ca.crt}
authorization: {mode: Webhook}
clusterDomain: cluster.local
clusterDNS: [$dns_service_ip]
resolvConf: /etc/resolv.conf
# Imported images cannot be pulled again: never garbage-collect them.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%"}
serializeImagePulls: false
nodeStatusReportFrequency: 10s
syncFrequency: 10s
fileCheckFrequency: 10s
EOF
start kubelet kubelet --config "$state_dir/kubelet.yaml" --kubeconfig "$state_dir/kubelet.kubeconfig" \
  --hostname-override "$node_name" --node-ip "$node_ip" --root-dir "$state_dir/kubelet" --v 1
cat > "$state_dir/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: "$state_dir/kube-proxy.kubeconfig"}
mode: iptables
hostnameOverride: $node_name
clusterCIDR: $pod_cidr
bindAddress: 127.0.0.1
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
nodePortAddresses: ["$node_ip/32"]
oomScoreAdj: 0
# 0 = leave the host's conntrack sysctls alone.
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
EOF
start kube-proxy kube-proxy --config "$state_dir/kube-proxy.yaml"
wait_until 120 "node $node_name to register" kubectl get node "$node_name"
wait_until 180 "node $node_name to become Ready" kubectl wait --for=condition=Ready "node/$node_name" --timeout=2s
step_done

# The bridge CNI leaves NetworkPolicies unenforced; kube-router's firewall controller enforces them (pods' traffic
# crosses iptables' FORWARD chain through bridge-nf-call-iptables). Only the controller runs: no routing, no
# service proxy, no CNI of its own, no health or metrics listener.
step "kube-router $kube_router_version: NetworkPolicies"
start kube-router kube-router --kubeconfig "$admin_kubeconfig" --hostname-override "$node_name" \
  --run-firewall=true --run-router=false --run-service-proxy=false --enable-cni=false --enable-ipv6=false \
  --service-cluster-ip-range "$service_cidr" --health-port 0 --metrics-port 0 --iptables-sync-period 1m
wait_until 120 "kube-router's firewall chains" iptables -t filter -S KUBE-ROUTER-FORWARD
step_done

step "CoreDNS ($dns_service_ip) and the default service account"
sed -e "s#@COREDNS_IMAGE@#docker.io/$coredns_image#" -e "s#@DNS_SERVICE_IP@#$dns_service_ip#" \
  "$cluster_scripts/addons/coredns.yaml" | kubectl apply -f - >/dev/null
wait_until 180 "CoreDNS to become available" kubectl -n kube-system rollout status deployment/coredns --timeout=2s
wait_until 60 "the default service account" kubectl -n default get serviceaccount default
step_done

echo "cluster: Kubernetes v$kube_version up in $((SECONDS - started_all))s; node $node_name ($node_ip)"
echo "cluster: export KUBECONFIG=$admin_kubeconfig"
