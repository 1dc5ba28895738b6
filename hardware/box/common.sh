# Sourced by table.sh and hardware/box/install.sh: what both need on Debian 12 and Debian 13
# (and the Raspberry Pi OS releases built on them).

# missing_pkgs NAME...: the names not installed. A package Debian renamed counts as installed
# under its old name: Debian 13's 64-bit time_t transition made libmtdev1 `libmtdev1t64` and
# libzbar0 `libzbar0t64` (apt installs the new one when asked for the old name, but
# `dpkg -s libmtdev1` then says "not installed" for ever). So a name is there when a package of
# that name, or of that name with `t64`, is installed, or an installed package provides it.
missing_pkgs() {
  local have
  have="$(dpkg-query -W -f='${db:Status-Status}\t${Package}\t${Provides}\n' 2>/dev/null |
    awk -F'\t' '$1 == "installed" { print $2; n = split($3, p, /, */);
                                    for (i = 1; i <= n; i++) { sub(/ .*/, "", p[i]); print p[i] } }')"
  local p
  for p in "$@"; do
    grep -qxF -e "$p" -e "${p}t64" <<<"$have" || echo "$p"
  done
}

# ensure_lgpio VENV_PYTHON [SUDO]: lgpio, gpiozero's pin library on a Pi 4 and a Pi 5, in that
# venv (arm64 only). lgpio publishes wheels for CPython up to 3.12; on 3.13 (Debian 13, today's
# Raspberry Pi OS) pip would build its sdist, which needs SWIG and a C compiler and links an
# installed lgpio C library that Debian does not have. So: its wheel where one exists; else we
# build it from the sdist the way its authors build their wheels (PYPI=1: the C library
# compiled in), with Debian's swig, gcc and the Python headers. pip keeps the built wheel in
# its cache, so an update does not build it again. Never the empty placeholder lgpio 0.0.0.2.
LGPIO_REQ="lgpio>=0.2.2.0"
ensure_lgpio() {
  local py="$1" sudo="${2:-}"
  [ "$(uname -m)" = aarch64 ] || return 0
  "$py" -c 'import lgpio' 2>/dev/null && return 0
  "$py" -m pip install -q --only-binary=lgpio "$LGPIO_REQ" 2>/dev/null && return 0
  local tools
  tools="$(missing_pkgs swig gcc libc6-dev python3-dev)"
  echo "lgpio: no wheel for Python $("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" \
       "here; building it from its source (a minute or two on a Pi 4)" >&2
  if [ -n "$tools" ]; then
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $tools >/dev/null
  fi
  PYPI=1 "$py" -m pip install -q --no-binary=lgpio "$LGPIO_REQ"
  "$py" -c 'import lgpio' || { echo "lgpio: the build did not give an importable lgpio" >&2; return 1; }
}
