#!/usr/bin/env bash
# Builds a minimal Node.js base image without pulling anything: the machine's own `node` and
# the shared libraries `ldd` lists, imported as an image (no shell, no npm, no /etc/passwd).
# The rocelab Dockerfile runs on it with `--build-arg NODE_IMAGE=<name>`.
#
#   deploy/docker/offline-base-image.sh [IMAGE_NAME]     (default: rocelab/node-offline:local)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/rootfs.sh"
image="${1:-rocelab/node-offline:local}"
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT

copy_with_libs "$root" "$(command -v node)" /usr/local/bin/node
add_name_resolution "$root"
mkdir -p "$root/tmp" && chmod 1777 "$root/tmp"

tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
  --change 'ENTRYPOINT ["/usr/local/bin/node"]' \
  - "$image" >/dev/null
echo "$image"
