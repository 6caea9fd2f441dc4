#!/usr/bin/env bash
# Writes the cluster's own images, the pod sandbox (pause) and CoreDNS, as single-layer tarballs in the
# layout `docker save` writes, from the static binaries node-binaries.sh built. No registry is reachable,
# so up.sh imports them into containerd (`ctr images import`). kvpool's images are built by Maven
# (images, with Jib); these two only wrap one static binary each, which tar and sha256sum do.
# Idempotent: an archive newer than its binary is kept.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# write_archive ROOTFS REFERENCE OUTPUT ENTRYPOINT_JSON: one layer, no Docker daemon.
write_archive() {
  local rootfs=$1 reference=$2 output=$3 entrypoint=$4 work diff_id config_id
  work="$(mktemp -d)"
  # Reproducible layer: sorted names, root ownership, epoch times.
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$rootfs" -cf "$work/layer.tar" .
  diff_id="$(sha256sum "$work/layer.tar" | cut -d' ' -f1)"
  mkdir "$work/$diff_id"
  mv "$work/layer.tar" "$work/$diff_id/layer.tar"
  printf '{"architecture":"amd64","os":"linux","created":"1970-01-01T00:00:00Z","config":{"Entrypoint":%s,"WorkingDir":"/"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"history":[{"created":"1970-01-01T00:00:00Z","created_by":"e2e/cluster/system-images.sh"}]}' \
    "$entrypoint" "$diff_id" > "$work/config.json"
  config_id="$(sha256sum "$work/config.json" | cut -d' ' -f1)"
  mv "$work/config.json" "$work/$config_id.json"
  printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["%s/layer.tar"]}]' "$config_id" "$reference" "$diff_id" \
    > "$work/manifest.json"
  mkdir -p "$(dirname "$output")"
  tar --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$work" -cf "$output.tmp" manifest.json "$config_id.json" "$diff_id"
  mv -f "$output.tmp" "$output"
  rm -rf "$work"
}

image_from_binary() { # name reference entrypoint-json
  local name=$1 reference=$2 entrypoint=$3 output="$system_images/$1.tar" rootfs
  [[ -x "$cluster_bin/$name" ]] || fail "$cluster_bin/$name is missing: run e2e/cluster/node-binaries.sh"
  [[ -f "$output" && "$output" -nt "$cluster_bin/$name" ]] && return
  rootfs="$(mktemp -d)"
  mkdir -p "$rootfs/etc" "$rootfs/tmp"
  chmod 1777 "$rootfs/tmp"
  cp "$cluster_bin/$name" "$rootfs/$name"
  write_archive "$rootfs" "$reference" "$output" "$entrypoint"
  rm -rf "$rootfs"
  echo "cluster: wrote $output ($reference, $(du -h "$output" | cut -f1))"
}

image_from_binary pause "$pause_image" '["/pause"]'
image_from_binary coredns "$coredns_image" '["/coredns"]'
