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

inputs="$(inputs_digest "$here/offline-base-image.sh" "$here/rootfs.sh" -- "$node")"
if [ "$(image_inputs "$image")" = "$inputs" ]; then
  echo "$image"
  exit 0
fi
replaced="$(image_id "$image")"

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
copy_with_libs "$root" "$node" /usr/local/bin/node
add_name_resolution "$root"
mkdir -p "$root/tmp" && chmod 1777 "$root/tmp"

tar -C "$root" -c . | docker import \
  --change "LABEL $INPUTS_LABEL=$inputs" \
  --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
  --change 'ENTRYPOINT ["/usr/local/bin/node"]' \
  - "$image" >/dev/null
remove_replaced "$replaced" "$(image_id "$image")"
echo "$image"
