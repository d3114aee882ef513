# Shared by the offline image scripts: a root filesystem from binaries of this machine, and
# what decides whether an image built from them is still current. Sourced, not run.

# The libraries add_name_resolution copies when this machine has them.
NAME_RESOLUTION_LIBS=(/lib/x86_64-linux-gnu/libnss_dns.so.2 /lib/x86_64-linux-gnu/libnss_files.so.2 /lib/x86_64-linux-gnu/libresolv.so.2)

# copy_with_libs ROOT BINARY DEST: BINARY at ROOT/DEST, plus every shared library `ldd` lists
# at its own path (the dynamic loader included).
copy_with_libs() {
  local root="$1" bin="$2" dest="$3"
  mkdir -p "$root$(dirname "$dest")"
  cp -L "$bin" "$root$dest"
  ldd "$bin" | grep -oE '/[^ ]+' | while read -r lib; do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
}

# add_name_resolution ROOT: nsswitch and the glibc resolver, so containers resolve compose
# service names.
add_name_resolution() {
  local root="$1" lib
  mkdir -p "$root/etc"
  printf 'hosts: files dns\n' > "$root/etc/nsswitch.conf"
  for lib in "${NAME_RESOLUTION_LIBS[@]}"; do
    if [ -e "$lib" ]; then mkdir -p "$root$(dirname "$lib")"; cp -L "$lib" "$root$lib"; fi
  done
}

# inputs_digest SCRIPT… -- BINARY…: SHA-256 over what an image built from these holds: the
# contents of each SCRIPT (the image's layout and settings), of each BINARY and of every library
# `ldd` lists for it, and of the name-resolution libraries, each library under the path it gets
# in the image. The same inputs give the same digest, wherever this checkout lives.
inputs_digest() {
  local f lib
  {
    while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
      printf 'script %s\n' "$(sha256sum <"$1" | cut -c1-64)"
      shift
    done
    [ "$#" -gt 0 ] && shift # the "--"
    for f in "$@"; do
      printf 'binary %s\n' "$(sha256sum <"$f" | cut -c1-64)"
      # A static binary has no libraries: ldd says so and fails, which is not an error here.
      for lib in $({ ldd "$f" 2>/dev/null || true; } | grep -oE '/[^ ]+' || true); do
        printf 'library %s %s\n' "$lib" "$(sha256sum <"$lib" | cut -c1-64)"
      done
    done
    for lib in "${NAME_RESOLUTION_LIBS[@]}"; do
      if [ -e "$lib" ]; then printf 'library %s %s\n' "$lib" "$(sha256sum <"$lib" | cut -c1-64)"; fi
    done
  } | sha256sum | cut -c1-64
}

# The label an image built here carries: the digest of its inputs.
INPUTS_LABEL=org.rocelab.inputs

# image_inputs IMAGE: the inputs digest IMAGE was built from; empty when there is no such image
# or it has no such label (an image built by an older script, or by something else).
image_inputs() {
  docker image inspect --format "{{ index .Config.Labels \"$INPUTS_LABEL\" }}" "$1" 2>/dev/null || true
}

# image_id IMAGE: its ID, empty when there is none.
image_id() {
  docker image inspect --format '{{ .Id }}' "$1" 2>/dev/null || true
}

# remove_replaced OLD_ID NEW_ID: the image a rebuild took the name from, if it differs and nothing
# else names or uses it (`docker image rm` by ID refuses an image another tag or a container
# still holds: then it stays). Otherwise every rebuild would leave a dangling image behind.
remove_replaced() {
  if [ -n "$1" ] && [ "$1" != "$2" ]; then docker image rm "$1" >/dev/null 2>&1 || true; fi
}
