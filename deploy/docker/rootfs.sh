# Shared by the offline image scripts: a root filesystem from binaries of this machine.
# Sourced, not run.

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
  for lib in /lib/x86_64-linux-gnu/libnss_dns.so.2 /lib/x86_64-linux-gnu/libnss_files.so.2 /lib/x86_64-linux-gnu/libresolv.so.2; do
    if [ -e "$lib" ]; then mkdir -p "$root$(dirname "$lib")"; cp -L "$lib" "$root$lib"; fi
  done
}
