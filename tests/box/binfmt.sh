# Sourced by build-base.sh and build-image.sh: run arm64 programs on this host through
# qemu-user-static, with the kernel's binfmt_misc 'C' flag, so that a setuid program in the
# root (sudo, as the Pi user runs ./table.sh install) gets its privileges as on a real Pi.
# Debian registers qemu-aarch64 without it; binfmt_misc is not mounted by default here.
ensure_binfmt() {
  [ "$(uname -m)" = aarch64 ] && return 0
  [ -e /proc/sys/fs/binfmt_misc/register ] ||
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  local f=/proc/sys/fs/binfmt_misc/qemu-aarch64
  [ -e "$f" ] || update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
  [ -e "$f" ] || { echo "binfmt: no qemu-aarch64 handler (install qemu-user-static)" >&2; return 1; }
  grep -q '^flags:.*C' "$f" && return 0
  local interp magic mask hex
  interp=$(sed -n 's/^interpreter //p' "$f")
  hex() { sed 's/../\\x&/g'; }
  magic=$(sed -n 's/^magic //p' "$f" | hex)
  mask=$(sed -n 's/^mask //p' "$f" | hex)
  echo -1 >"$f"
  printf ':qemu-aarch64:M::%s:%s:%s:POCF\n' "$magic" "$mask" "$interp" \
    >/proc/sys/fs/binfmt_misc/register
}
