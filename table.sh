#!/usr/bin/env bash
# Table Companion set-up and entry point, for a fresh Debian 12 / Raspberry Pi OS machine.
#   ./table.sh run    install what is missing, then start the table: `companion run`
#   ./table.sh test   install what is missing (with test tools), then run the whole test suite
# Extra arguments go to `companion run` or to pytest.
set -euo pipefail
cd "$(dirname "$0")"
mode="${1:-}"; shift || true

SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
RUN_PKGS="python3 python3-venv python3-pip mosquitto mosquitto-clients libmtdev1 sqlite3"
TEST_PKGS="chromium xvfb xauth libzbar0 poppler-utils"   # poppler-utils: pdftoppm (tests/printing)

need_pkgs() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
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
    .venv/bin/python -m pip install -q -e ".$extra"
    touch "$stamp"
  fi
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
    export SDL_VIDEODRIVER="${SDL_VIDEODRIVER:-offscreen}" SDL_AUDIODRIVER=dummy KIVY_NO_ARGS=1
    exec .venv/bin/python -m pytest "$@"
    ;;
  *)
    echo "usage: ./table.sh run | ./table.sh test" >&2
    exit 2
    ;;
esac
