#!/usr/bin/env bash
# Builds a minimal Node.js base image without pulling anything: the machine's own `node` and
# the shared libraries `ldd` lists, imported as an image (no shell, no npm, no /etc/passwd).
# The rocelab Dockerfile runs on it with `--build-arg NODE_IMAGE=<name>`.
#
#   deploy/docker/offline-base-image.sh [IMAGE_NAME]     (default: rocelab/node-offline:local)
#
# Built once per inputs, as offline-prometheus-image.sh: the label org.rocelab.inputs holds the
# digest of node, its libraries and these scripts; the same digest is reused, another replaces
# the image (and removes the one it replaces).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/rootfs.sh"
image="${1:-rocelab/node-offline:local}"
node="$(command -v node)"
# Debian's RDMA programs a host may run on the rocelab0 device (issue 25), and capstone, which the
# device's librocelab.so links: in the image when this machine has them (CI installs them).
rdma=()
for p in ibv_devinfo ibv_devices ibv_rc_pingpong ib_write_bw ib_write_lat ib_read_bw ib_read_lat ib_send_bw ib_send_lat ib_atomic_bw ib_atomic_lat rping rdma_server rdma_client; do
  if command -v "$p" >/dev/null 2>&1; then rdma+=("$(command -v "$p")"); fi
done
capstone="$(ldconfig -p 2>/dev/null | grep -oE '/[^ ]+/libcapstone\.so\.[0-9]+$' | head -n 1 || true)"
[ -n "$capstone" ] && rdma+=("$capstone")

inputs="$(inputs_digest "$here/offline-base-image.sh" "$here/rootfs.sh" -- "$node" ${rdma[@]+"${rdma[@]}"})"
if [ "$(image_inputs "$image")" = "$inputs" ]; then
  echo "$image"
  exit 0
fi
replaced="$(image_id "$image")"

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
copy_with_libs "$root" "$node" /usr/local/bin/node
for bin in ${rdma[@]+"${rdma[@]}"}; do copy_with_libs "$root" "$bin" "$bin"; done
add_name_resolution "$root"
mkdir -p "$root/tmp" && chmod 1777 "$root/tmp"

tar -C "$root" -c . | docker import \
  --change "LABEL $INPUTS_LABEL=$inputs" \
  --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
  --change 'ENTRYPOINT ["/usr/local/bin/node"]' \
  - "$image" >/dev/null
remove_replaced "$replaced" "$(image_id "$image")"
echo "$image"
