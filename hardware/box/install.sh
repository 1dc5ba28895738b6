#!/usr/bin/env bash
# Make this machine a Table Companion box, or undo it. Idempotent: run it again after
# `git pull` to update. Called by `./table.sh install` and `./table.sh uninstall` (as root).
#
#   install.sh install   [CHECKOUT]   the appliance: starts the table full screen at boot
#   install.sh uninstall [--purge]    remove it; the sessions stay unless --purge
#
# What `install` does, in order (each step says what it did):
#   1. Debian packages: Python, mosquitto, and the libraries Kivy needs to draw over KMS/DRM
#      with no desktop (Mesa's GL/EGL/GBM and DRM, mtdev for touch).
#   2. A system user `table-companion` in the groups that own the screen (video, render), touch
#      and buttons (input), GPIO (gpio) and the card reader (dialout).
#   3. The program in its own venv, /opt/table-companion/venv (lgpio comes with it on arm64: its
#      wheel, or on Python 3.13, which it has no wheel for, built from its source).
#   4. Settings in /etc/table-companion (hardware.toml, table.env), written once, never overwritten.
#   5. Debian's own mosquitto.service disabled: the table starts its own mosquitto on 1883 and
#      9001 with its own logins and topic rules, and two brokers cannot share a port.
#   6. journald in RAM (fewer SD card writes); the console instead of a desktop at boot.
#   7. The box's own network, where NetworkManager runs the network (Raspberry Pi OS does):
#      the packages its own Wi-Fi needs, a polkit rule that lets the table's user run
#      NetworkManager, every name resolving to the box on its own Wi-Fi, and the root helper
#      for what needs root (the Wi-Fi country, the own Wi-Fi's firewall; docs/network.md).
#   8. The systemd service table-companion.service, enabled (and started when systemd runs).
# State it changed and must restore on uninstall is noted in /etc/table-companion/install.state.
set -euo pipefail

USER_NAME=table-companion
PREFIX=/opt/table-companion
ETC=/etc/table-companion
STATE_DIR=/var/lib/table-companion
UNIT=table-companion.service
STATE_FILE=$ETC/install.state
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/common.sh"                # missing_pkgs, ensure_lgpio (Debian 12 and 13 alike)
NET_DIR=/usr/local/lib/table-companion
NET_PKGS="network-manager wpasupplicant dnsmasq-base polkitd nftables iw"
PKGS="python3 python3-venv python3-pip mosquitto sqlite3 \
  libgl1 libegl1 libgles2 libgbm1 libdrm2 libgl1-mesa-dri libmtdev1 fonts-dejavu-core"

say() { echo "install: $*" >&2; }
die() { echo "install: $*" >&2; exit 1; }
systemd_running() { [ -d /run/systemd/system ]; }
note_state() {       # remember a key=value the first time only (what to restore on uninstall)
  grep -q "^$1=" "$STATE_FILE" 2>/dev/null || echo "$1=$2" >>"$STATE_FILE"
}
state_of() {         # nothing noted (or no state file: uninstalled already) is not an error
  [ -f "$STATE_FILE" ] || return 0
  sed -n "s/^$1=//p" "$STATE_FILE" | head -n 1
}

[ "$(id -u)" -eq 0 ] || die "run me as root (./table.sh install uses sudo)."

install_box() {
  local checkout="${1:-$(cd "$HERE/../.." && pwd)}"
  [ -f "$checkout/pyproject.toml" ] || die "no Table Companion checkout at $checkout."
  mkdir -p "$ETC"

  say "1/8 Debian packages"
  # Whether somebody used Debian's broker before us (then uninstall turns it back on).
  if dpkg -s mosquitto >/dev/null 2>&1 && systemctl is-enabled mosquitto.service >/dev/null 2>&1
  then note_state mosquitto_enabled yes; fi
  local missing=()
  # shellcheck disable=SC2086
  mapfile -t missing < <(missing_pkgs $PKGS)   # libmtdev1 is libmtdev1t64 on Debian 13
  if [ ${#missing[@]} -gt 0 ]; then
    say "    installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >/dev/null
  else
    say "    all there"
  fi

  say "2/8 system user $USER_NAME"
  getent group gpio >/dev/null || { groupadd --system gpio; note_state gpio_group ours; }
  if ! id "$USER_NAME" >/dev/null 2>&1; then
    useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home \
      --shell /usr/sbin/nologin --comment "Table Companion" "$USER_NAME"
  fi
  local groups=()
  for g in video render input gpio dialout; do getent group "$g" >/dev/null && groups+=("$g"); done
  usermod -a -G "$(IFS=,; echo "${groups[*]}")" "$USER_NAME"
  install -d -o "$USER_NAME" -g "$USER_NAME" -m 0750 "$STATE_DIR"
  # Raspberry Pi OS gives /dev/gpiochip* to the gpio group (99-com.rules); plain Debian does not.
  if ! grep -qs 'gpiochip' /etc/udev/rules.d/*.rules /lib/udev/rules.d/*.rules /usr/lib/udev/rules.d/*.rules; then
    echo 'SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"' \
      >/etc/udev/rules.d/60-table-companion-gpio.rules
    systemd_running && udevadm trigger --subsystem-match=gpio || true
  fi

  say "3/8 the program in $PREFIX/venv"
  [ -x "$PREFIX/venv/bin/python" ] || python3 -m venv "$PREFIX/venv"
  "$PREFIX/venv/bin/python" -m pip install -q --upgrade pip
  ensure_lgpio "$PREFIX/venv/bin/python"   # a wheel, or built from its source (Python 3.13)
  # pip builds a local checkout afresh every time (an update is `git pull` and install again);
  # what it needs and already has stays.
  "$PREFIX/venv/bin/python" -m pip install -q "$checkout"
  rm -rf "$PREFIX/docs" && cp -r "$checkout/docs" "$PREFIX/docs"
  cat >/usr/local/bin/table-companion <<EOF
#!/bin/sh
# The companion command on this box, as the table's own user, on the table's store:
#   sudo table-companion sessions | stats | sessions backup /media/usb | doctor ...
export COMPANION_DB=$STATE_DIR/sessions.db TABLE_COMPANION_HARDWARE=$ETC/hardware.toml
cd $STATE_DIR 2>/dev/null || cd /
if [ "\$(id -u)" -eq 0 ]; then
  exec runuser -u $USER_NAME -- $PREFIX/venv/bin/companion "\$@"
fi
exec $PREFIX/venv/bin/companion "\$@"
EOF
  chmod 0755 /usr/local/bin/table-companion

  say "4/8 settings in $ETC"
  [ -f "$ETC/hardware.toml" ] || install -m 0644 "$HERE/hardware.toml" "$ETC/hardware.toml"
  [ -f "$ETC/table.env" ] || install -m 0644 "$HERE/table.env" "$ETC/table.env"

  say "5/8 Debian's mosquitto.service off (the table runs its own broker on 1883/9001)"
  # (`systemctl cat` answers nothing in a chroot or an image being built: ask dpkg instead)
  if dpkg -s mosquitto >/dev/null 2>&1; then
    if systemd_running; then systemctl disable --now mosquitto.service
    else systemctl disable mosquitto.service; fi
    [ "$(systemctl is-enabled mosquitto.service 2>/dev/null)" != enabled ] ||
      die "could not disable Debian's mosquitto.service; the table needs ports 1883 and 9001."
  fi

  say "6/8 logs in RAM, console at boot"
  install -D -m 0644 "$HERE/journald.conf" /etc/systemd/journald.conf.d/table-companion.conf
  systemd_running && systemctl restart systemd-journald || true
  local target
  target="$(systemctl get-default 2>/dev/null || echo multi-user.target)"
  if [ "$target" != multi-user.target ]; then
    note_state default_target "$target"     # a desktop would hold the screen
    systemctl set-default multi-user.target >/dev/null
  fi

  say "7/8 the box's own network (docs/network.md)"
  install_network

  say "8/8 $UNIT"
  install -m 0644 "$HERE/$UNIT" "/etc/systemd/system/$UNIT"
  systemctl enable "$UNIT" >/dev/null 2>&1 || die "could not enable $UNIT."
  if systemd_running; then
    systemctl daemon-reload
    systemctl restart "$UNIT"
    say "done: the table is starting on this box's screen (journalctl -u table-companion -f)."
  else
    say "done: the table starts at the next boot."
  fi
}

nm_runs_the_network() {   # NetworkManager installed and enabled (Raspberry Pi OS bookworm, trixie)
  dpkg -s network-manager >/dev/null 2>&1 &&
    [ "$(systemctl is-enabled NetworkManager.service 2>/dev/null)" = enabled ]
}

install_network() {
  if ! nm_runs_the_network; then
    say "    skipped: NetworkManager does not run this machine's network (Raspberry Pi OS's" \
        "does); the box's own Wi-Fi and Menu > Network need it. The table works on the" \
        "network this machine has."
    return 0
  fi
  local missing=()
  # shellcheck disable=SC2086
  mapfile -t missing < <(missing_pkgs $NET_PKGS)
  if [ ${#missing[@]} -gt 0 ]; then
    say "    installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >/dev/null
  fi
  install -D -m 0755 "$HERE/network/netadmin" "$NET_DIR/netadmin"
  install -D -m 0755 "$HERE/network/90-table-companion" \
    /etc/NetworkManager/dispatcher.d/90-table-companion
  install -D -m 0644 "$HERE/network/dnsmasq-shared.conf" \
    /etc/NetworkManager/dnsmasq-shared.d/table-companion.conf
  install -D -m 0644 "$HERE/network/50-table-companion.rules" \
    /etc/polkit-1/rules.d/50-table-companion.rules
  install -m 0644 "$HERE/network/table-companion-net.path" \
    "$HERE/network/table-companion-net.service" /etc/systemd/system/
  # the own Wi-Fi's name and password, made now, once (the table's user owns them)
  runuser -u "$USER_NAME" -- "$PREFIX/venv/bin/python" -m companion.net.wifi.own "$STATE_DIR" \
    | sed 's/^/install:     its own Wi-Fi: /' >&2
  systemctl enable table-companion-net.path table-companion-net.service >/dev/null 2>&1
  if systemd_running; then
    systemctl daemon-reload
    systemctl start table-companion-net.path
  fi
  say "    NetworkManager runs the network: its own Wi-Fi when no known network is in reach"
}

uninstall_network() {
  if [ -e /etc/systemd/system/table-companion-net.path ]; then
    systemctl disable table-companion-net.path table-companion-net.service >/dev/null 2>&1 || true
    systemd_running && systemctl stop table-companion-net.path || true
  fi
  if command -v nmcli >/dev/null && systemd_running; then
    nmcli connection delete id table-companion-own >/dev/null 2>&1 || true
  fi
  if command -v nft >/dev/null && systemd_running; then
    nft delete table inet table_companion_own 2>/dev/null || true
  fi
  rm -f /etc/systemd/system/table-companion-net.path \
    /etc/systemd/system/table-companion-net.service \
    /etc/NetworkManager/dispatcher.d/90-table-companion \
    /etc/NetworkManager/dnsmasq-shared.d/table-companion.conf \
    /etc/polkit-1/rules.d/50-table-companion.rules /etc/modprobe.d/table-companion-wifi.conf
  rm -rf "$NET_DIR"
}

uninstall_box() {
  local purge="${1:-}"
  say "removing $UNIT"
  if [ -e "/etc/systemd/system/$UNIT" ]; then
    systemd_running && systemctl stop "$UNIT" || true
    systemctl disable "$UNIT" >/dev/null 2>&1 || true
  fi
  uninstall_network
  rm -f "/etc/systemd/system/$UNIT" /etc/systemd/journald.conf.d/table-companion.conf \
    /etc/udev/rules.d/60-table-companion-gpio.rules /usr/local/bin/table-companion
  local target gpio_group; target="$(state_of default_target)"; gpio_group="$(state_of gpio_group)"
  [ -n "$target" ] && systemctl set-default "$target" >/dev/null
  if [ "$(state_of mosquitto_enabled)" = yes ]; then
    systemctl enable mosquitto.service >/dev/null 2>&1 || true
    systemd_running && systemctl start mosquitto.service || true
  fi
  if systemd_running; then systemctl daemon-reload; systemctl restart systemd-journald || true; fi
  rm -rf "$PREFIX"
  rm -f "$STATE_FILE"
  if [ "$purge" = --purge ]; then
    rm -rf "$STATE_DIR" "$ETC"
    id "$USER_NAME" >/dev/null 2>&1 && userdel "$USER_NAME"
    [ "$gpio_group" = ours ] && groupdel gpio 2>/dev/null || true
    say "done: removed, sessions and settings too."
  else
    say "done: removed. Kept the sessions in $STATE_DIR and the settings in $ETC" \
        "(./table.sh uninstall --purge removes them and the user $USER_NAME)."
  fi
}

case "${1:-}" in
  install) shift; install_box "$@" ;;
  uninstall) shift; uninstall_box "$@" ;;
  *) die "usage: install.sh install [CHECKOUT] | uninstall [--purge]" ;;
esac
