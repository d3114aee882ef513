#!/usr/bin/env bash
# Builds a Docker-in-Docker node image without pulling anything: this machine's Debian Docker
# engine (dockerd, containerd, runc; package docker.io), iptables and iproute2 (ip, tc), and
# nfq-delay (deploy/docker/nfq-delay.c, compiled here against libnetfilter-queue-dev: a fixed
# packet delay for kernels without sch_netem), each with the shared libraries `ldd` lists,
# imported as an image whose entry point is dockerd. Two of them, run with --privileged, make
# the two-node swarm of test/src/dind-swarm.test.ts and docs/multi-machine.md.
#
#   deploy/docker/offline-dind-image.sh [IMAGE_NAME]     (default: rocelab/dind-offline:local)
#
# Built once per inputs, as offline-base-image.sh: the label org.rocelab.inputs holds the digest
# of these binaries, their libraries and these scripts.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/rootfs.sh"
image="${1:-rocelab/dind-offline:local}"

need() {
  local p
  p="$(command -v "$1" 2>/dev/null || true)"
  if [ -z "$p" ]; then
    echo "offline-dind-image.sh: $1 is not installed: expected Debian's $2 package on this machine" >&2
    exit 1
  fi
  printf '%s\n' "$p"
}
bins=()
for b in dockerd:docker.io docker:docker.io docker-init:docker.io docker-proxy:docker.io containerd:containerd containerd-shim-runc-v2:containerd runc:runc \
  xtables-nft-multi:iptables ip:iproute2 tc:iproute2; do
  bins+=("$(need "${b%%:*}" "${b#*:}")")
done
xtables=/usr/lib/x86_64-linux-gnu/xtables # iptables' extensions, which it opens at run time
if [ ! -d "$xtables" ]; then
  echo "offline-dind-image.sh: $xtables is missing: expected Debian's iptables package on this machine" >&2
  exit 1
fi
if [ ! -e /usr/include/libnetfilter_queue/libnetfilter_queue.h ] || ! command -v gcc >/dev/null 2>&1; then
  echo "offline-dind-image.sh: nfq-delay needs gcc and the libnetfilter_queue headers: expected Debian's gcc and libnetfilter-queue-dev packages" >&2
  exit 1
fi

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/usr/local/bin"
gcc -O2 -Wall -o "$root/usr/local/bin/nfq-delay" "$here/nfq-delay.c" -lnetfilter_queue -lnfnetlink

inputs="$(inputs_digest "$here/offline-dind-image.sh" "$here/rootfs.sh" "$here/nfq-delay.c" -- "${bins[@]}" "$xtables"/*.so)"
if [ "$(image_inputs "$image")" = "$inputs" ]; then
  echo "$image"
  exit 0
fi
replaced="$(image_id "$image")"

# copy_with_libs, for a static binary too (docker-init: ldd says "not a dynamic executable").
copy_any() {
  if ldd "$2" >/dev/null 2>&1; then copy_with_libs "$@"; else mkdir -p "$1$(dirname "$3")" && cp -L "$2" "$1$3"; fi
}
for bin in "${bins[@]}"; do copy_any "$root" "$bin" "$bin"; done
copy_with_libs "$root" "$root/usr/local/bin/nfq-delay" /usr/local/bin/nfq-delay.tmp
mv "$root/usr/local/bin/nfq-delay.tmp" "$root/usr/local/bin/nfq-delay"
for ext in "$xtables"/*.so; do copy_with_libs "$root" "$ext" "$ext"; done
nft="$(command -v xtables-nft-multi)"
for name in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore; do
  ln -s "$nft" "$root$(dirname "$nft")/$name"
done
add_name_resolution "$root"
mkdir -p "$root/tmp" "$root/run" "$root/var/lib/docker" "$root/etc/docker" && chmod 1777 "$root/tmp"
# No /etc/passwd or group: dockerd's socket group "docker" does not exist, so root alone uses it.
tar -C "$root" -c . | docker import \
  --change "LABEL $INPUTS_LABEL=$inputs" \
  --change 'ENV PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'VOLUME /var/lib/docker' \
  --change 'ENTRYPOINT ["dockerd", "--host", "unix:///var/run/docker.sock", "--storage-driver", "overlay2"]' \
  - "$image" >/dev/null
remove_replaced "$replaced" "$(image_id "$image")"
echo "$image"
