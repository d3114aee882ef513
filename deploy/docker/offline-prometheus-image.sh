#!/usr/bin/env bash
# Builds a Prometheus image without pulling anything, from Debian's `prometheus` binary
# (apt-get install prometheus), laid out like the official prom/prometheus image: the binary
# at /bin/prometheus as the entrypoint, data in /prometheus, running as nobody (65534). Compose files
# pick it with PROMETHEUS_IMAGE=<name>.
#
#   deploy/docker/offline-prometheus-image.sh [IMAGE_NAME]   (default: rocelab/prometheus-offline:local)
#
# The image is built once per inputs: it carries the digest of what went into it (the binary, its
# libraries, these scripts) as the label org.rocelab.inputs, and a call that finds IMAGE_NAME with
# the same digest prints the name and builds nothing. When the inputs changed (a new prometheus
# package, an edited script) it builds again and removes the image it replaces, so repeated calls
# leave no dangling image behind (`docker import` of a fresh tar is a new image every time).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/rootfs.sh"
image="${1:-rocelab/prometheus-offline:local}"
bin="$(command -v prometheus || true)"
if [ -z "$bin" ]; then
  echo "offline-prometheus-image.sh: no prometheus binary; install Debian's package: apt-get install -y prometheus" >&2
  exit 2
fi

inputs="$(inputs_digest "$here/offline-prometheus-image.sh" "$here/rootfs.sh" -- "$bin")"
if [ "$(image_inputs "$image")" = "$inputs" ]; then
  echo "$image"
  exit 0
fi
replaced="$(image_id "$image")"

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
copy_with_libs "$root" "$bin" /bin/prometheus
add_name_resolution "$root"
mkdir -p "$root/tmp" "$root/prometheus" "$root/etc/prometheus"
# Writable by nobody, whose files the official image's data directory holds.
chmod 1777 "$root/tmp" "$root/prometheus"
tar -C "$root" --owner=0 --group=0 -c . | docker import \
  --change "LABEL $INPUTS_LABEL=$inputs" \
  --change 'USER 65534' \
  --change 'WORKDIR /prometheus' \
  --change 'ENTRYPOINT ["/bin/prometheus"]' \
  --change 'CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]' \
  - "$image" >/dev/null
remove_replaced "$replaced" "$(image_id "$image")"
echo "$image"
