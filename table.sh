#!/usr/bin/env bash
# Table Companion set-up and entry point, for 64-bit Raspberry Pi OS and Debian, 13 "trixie" or
# 12 "bookworm" (arm64, x86-64; Python 3.11 to 3.13).
#   ./table.sh run        install what is missing, then start the table: `companion run`
#   ./table.sh test       install what is missing (with test tools), then run the whole test suite
#   ./table.sh install    make this machine a box: the table starts full screen at every boot
#   ./table.sh uninstall  undo `install` (the sessions stay; --purge removes them too)
#   ./table.sh test-box   prove the box on arm64, Debian 13 and 12: build each arm64 system,
#                         install the table there as a Pi user would, boot it in QEMU and test
#                         it (tests/box)
#   ./table.sh box-image  start building those systems' images in the background (CI builds
#                         them while the suite runs; test-box waits for them)
# Extra arguments go to `companion run` or to pytest.
set -euo pipefail
cd "$(dirname "$0")"
mode="${1:-}"; shift || true

# One sentence before doing anything on a system we cannot serve.
case "$(uname -m)" in
  x86_64|aarch64) ;;
  armv6l|armv7l|armv8l|armhf)
    echo "table.sh: this is a 32-bit ARM system ($(uname -m)): Table Companion needs 64-bit" \
         "Raspberry Pi OS (Kivy, Pillow and websockets have no 32-bit ARM builds); write the" \
         "64-bit Lite image with Raspberry Pi Imager (docs/install-pi.md)." >&2; exit 2 ;;
  *) echo "table.sh: $(uname -m) is not supported: Table Companion runs on 64-bit Raspberry Pi" \
          "OS or Debian 12/13 on arm64 or x86-64." >&2; exit 2 ;;
esac
if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg >/dev/null 2>&1; then
  echo "table.sh: no apt here: Table Companion installs on 64-bit Raspberry Pi OS or Debian 12/13." >&2
  exit 2
fi

SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
. hardware/box/common.sh          # missing_pkgs, ensure_lgpio (shared with the box's install.sh)
# The table, its broker, and what Kivy needs to draw with no desktop (KMS/DRM: Mesa GL/EGL/GBM).
RUN_PKGS="python3 python3-venv python3-pip mosquitto mosquitto-clients libmtdev1 sqlite3
  libgl1 libegl1 libgles2 libgbm1 libdrm2 libgl1-mesa-dri"
# poppler-utils: pdftoppm (tests/printing); postgresql: the club (tests/club); webkit2gtk-driver:
# WebKitWebDriver and WebKitGTK, the phone page in WebKit under Xvfb (tests/phone/test_webkit.py)
TEST_PKGS="chromium xvfb xauth libzbar0 poppler-utils postgresql webkit2gtk-driver"
# The arm64 stand-in for a Pi (tests/box): build a Debian arm64 root and boot it under QEMU.
BOX_PKGS="debootstrap qemu-user-static binfmt-support qemu-system-arm qemu-utils e2fsprogs
  dosfstools mtools"   # dosfstools, mtools: the Pi's FAT boot partition, with its user-data

need_pkgs() {   # a second run installs nothing and needs no network (hardware/box/common.sh)
  local missing=()
  mapfile -t missing < <(missing_pkgs "$@")
  if [ ${#missing[@]} -gt 0 ]; then
    echo "table.sh: installing ${missing[*]}" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

python_env() {
  local extra="$1"
  if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
  fi
  local stamp=".venv/.installed-$extra"
  if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    .venv/bin/python -m pip install -q --upgrade pip
    ensure_lgpio .venv/bin/python "$SUDO"     # arm64: a wheel, or built from source on 3.13
    .venv/bin/python -m pip install -q -e ".$extra"
    touch "$stamp"
  fi
}

BOX_WORK="${BOX_WORK:-/var/tmp/table-companion-box/run}"
BOX_OSES="${BOX_OSES:-trixie bookworm}"   # the releases test-box proves (BOX_OSES=trixie: one)

test_env() {
  export SDL_VIDEODRIVER="${SDL_VIDEODRIVER:-offscreen}" SDL_AUDIODRIVER=dummy KIVY_NO_ARGS=1
}

case "$mode" in
  run)
    need_pkgs $RUN_PKGS
    python_env ""
    exec .venv/bin/companion run "$@"
    ;;
  test)
    need_pkgs $RUN_PKGS $TEST_PKGS
    command -v node >/dev/null 2>&1 || need_pkgs nodejs   # the protocol doc's JavaScript check
    python_env "[test,lab]"
    test_env
    [ $# -eq 0 ] || exec .venv/bin/python -m pytest "$@"
    # The whole suite. Tests marked `cpu` (bot games and statistics: minutes of pure
    # computation, no timing of their own) run beside the rest at the lowest priority, on the
    # core the rest leaves idle; their report follows the main one. Both must pass.
    cpu_tmp="$(mktemp -d)"
    nice -n 19 .venv/bin/python -m pytest -m cpu -p no:cacheprovider --basetemp="$cpu_tmp/t" \
      >"$cpu_tmp/log" 2>&1 &
    cpu_pid=$!
    trap 'kill "$cpu_pid" 2>/dev/null || true' EXIT
    rc=0; .venv/bin/python -m pytest -m "not cpu" || rc=$?
    cpu_rc=0; wait "$cpu_pid" || cpu_rc=$?
    echo "==================== the cpu-marked tests, run beside the rest ===================="
    cat "$cpu_tmp/log"; rm -rf "$cpu_tmp"
    [ "$rc" -eq 0 ] && [ "$cpu_rc" -eq 0 ] || exit $(( rc ? rc : cpu_rc ))
    ;;
  install|uninstall)
    exec $SUDO bash hardware/box/install.sh "$mode" "$@"   # bash: a copy off a FAT card has no x bits
    ;;
  box-image)
    need_pkgs $RUN_PKGS $TEST_PKGS $BOX_PKGS
    python_env "[test,lab]"
    # qemu-user for arm64 programs, set up once here: the two builds below start together
    . tests/box/binfmt.sh && ensure_binfmt
    for os_ in $BOX_OSES; do
      mkdir -p "$BOX_WORK/$os_"
      nohup tests/box/build-image.sh . "$BOX_WORK/$os_/image" "$os_" \
        >"$BOX_WORK/$os_/build.log" 2>&1 &
      echo $! >"$BOX_WORK/$os_/build.pid"
      echo "table.sh: building the $os_ arm64 image in the background (log: $BOX_WORK/$os_/build.log)" >&2
    done
    ;;
  test-box)
    need_pkgs $RUN_PKGS $TEST_PKGS $BOX_PKGS
    python_env "[test,lab]"
    test_env
    export BOX_WORK
    # Debian 13 (today's Raspberry Pi OS) gets the whole proof, Debian 12 the shorter one
    # (tests/box/conftest.py). Both must pass; each says how long it took.
    rc=0; times=""
    for os_ in $BOX_OSES; do
      t0=$SECONDS
      BOX_OS="$os_" .venv/bin/python -m pytest tests/box --box "$@" || rc=$?
      times="$times $os_ $(( (SECONDS - t0) / 60 )) min,"
    done
    echo "table.sh test-box:${times%,}" >&2
    exit "$rc"
    ;;
  *)
    echo "usage: ./table.sh run | test | install | uninstall [--purge] | test-box | box-image" >&2
    exit 2
    ;;
esac
