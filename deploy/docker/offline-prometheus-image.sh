#!/usr/bin/env bash
# Builds a Prometheus image without pulling anything, from Debian's `prometheus` binary
# (apt-get install prometheus), laid out like the official prom/prometheus image: the binary
# at /bin/prometheus as the entrypoint, data in /prometheus, running as nobody (65534). Compose files
# pick it with PROMETHEUS_IMAGE=<name>.
#
#   deploy/docker/offline-prometheus-image.sh [IMAGE_NAME]   (default: rocelab/prometheus-offline:local)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/rootfs.sh"
image="${1:-rocelab/prometheus-offline:local}"
bin="$(command -v prometheus || true)"
if [ -z "$bin" ]; then
  echo "offline-prometheus-image.sh: no prometheus binary; install Debian's package: apt-get install -y prometheus" >&2
  exit 2
fi
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT

copy_with_libs "$root" "$bin" /bin/prometheus
add_name_resolution "$root"
mkdir -p "$root/tmp" "$root/prometheus" "$root/etc/prometheus"
# Writable by nobody, whose files the official image's data directory holds.
chmod 1777 "$root/tmp" "$root/prometheus"
tar -C "$root" --owner=0 --group=0 -c . | docker import \
  --change 'USER 65534' \
  --change 'WORKDIR /prometheus' \
  --change 'ENTRYPOINT ["/bin/prometheus"]' \
  --change 'CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]' \
  - "$image" >/dev/null
echo "$image"
