#!/usr/bin/env bash
# Installs the node's container runtime and networking from Debian: containerd (1.6, with its CRI plugin),
# runc, the CNI plugins (bridge, host-local, portmap, loopback), iptables and conntrack for kube-proxy, ipset for
# kube-router's network policies,
# openssl for the cluster's certificates, iproute2 and procps for the scripts. Needs root and apt; does
# nothing when all are installed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

packages=(containerd runc containernetworking-plugins iptables conntrack ipset openssl iproute2 procps)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if (( ${#missing[@]} == 0 )); then
  echo "cluster: host packages present ($(containerd --version | awk '{print $1, $3}'), $(runc --version | head -n 1))"
  exit 0
fi
[[ $(id -u) == 0 ]] || fail "installing ${missing[*]} needs root (apt-get); install them or run as root"
command -v apt-get >/dev/null || fail "no apt-get: install ${missing[*]} with this system's package manager"
step "installing ${missing[*]} from the Debian archive"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
step_done
# The Debian package starts containerd through its service on machines with systemd; the cluster runs its
# own containerd with its own socket and root, so a service instance is left alone (and absent here).
echo "cluster: $(containerd --version | awk '{print $1, $3}'), $(runc --version | head -n 1)"
