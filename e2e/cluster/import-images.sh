#!/usr/bin/env bash
# Imports image tarballs (the layout `docker save` writes, e.g. images/target/images/*.tar) into the
# local cluster's containerd, in the k8s.io namespace the kubelet reads. Pods then use them by name with
# imagePullPolicy IfNotPresent or Never; nothing is pulled. Usage: import-images.sh TARBALL...
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
(( $# > 0 )) || fail "usage: import-images.sh TARBALL..."
[[ -S "$containerd_sock" ]] || fail "containerd is not running ($containerd_sock): start the cluster with up.sh"
for tarball in "$@"; do
  [[ -f "$tarball" ]] || fail "no such image tarball: $tarball"
  started=$SECONDS
  # ctr warns about cgroup v1 on every call; keep its real errors.
  ctr --address "$containerd_sock" -n k8s.io images import "$tarball" 2>&1 >/dev/null \
    | { grep -v "DEPRECATION: The support for cgroup v1" || true; } >&2
  echo "cluster: imported $tarball ($(du -h "$tarball" | cut -f1)) in $((SECONDS - started))s"
done
