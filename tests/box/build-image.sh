#!/usr/bin/env bash
# A bootable Pi stand-in with this checkout installed as a Pi user would install it, on top of
# the base system of build-base.sh (cached by that script's checksum and the release):
#   trixie    (Debian 13, today's Raspberry Pi OS) with nobody typing: the checkout and
#             hardware/box/cloud-init/user-data are copied onto the Pi's boot partition (a FAT
#             disk labelled bootfs), as docs/install-pi.md asks a user to, and the image's first
#             boot in QEMU lets cloud-init run README's `./table.sh install` as user pi. The
#             image is done when the table is up on its screen; then it is powered off cleanly.
#   bookworm  (Debian 12) as user `pi`, in ~/table-companion: `./table.sh install`, run in the
#             root under qemu-user (README).
#
#   tests/box/build-image.sh CHECKOUT OUT_DIR [trixie|bookworm]
#       -> OUT_DIR/{root.img,vmlinuz,initrd.img,timings,checkout-id} (+ bootfs.img, first-boot/)
#   tests/box/build-image.sh --id CHECKOUT   what checkout-id holds: the commit and a checksum
#                                            of the uncommitted changes (tests/box reuses an
#                                            image of the very same checkout)
#
# Then the test's own additions, which a real box does not get (kept apart, made before the
# install so that it keeps them, as it keeps any settings it finds): a hardware.toml for QEMU's
# GPIO chip, GPIOZERO_PI_REVISION (gpiozero's documented way to say which Pi this is),
# python3-evdev to make a touchscreen with uinput, a game set up at first start. Env:
# BOX_CACHE (default /var/tmp/table-companion-box) keeps the bases between runs.
set -euo pipefail
# The test's own driver (the tests, their fixtures) is not part of the image: a change there
# keeps the image.
DRIVER=(':(exclude)tests/box/test_*.py' ':(exclude)tests/box/conftest.py')
checkout_id() {
  (cd "$1" && echo "$(git rev-parse HEAD 2>/dev/null || echo none)" "$( {
    git status --porcelain --untracked-files=all -- . "${DRIVER[@]}"
    git diff HEAD -- . "${DRIVER[@]}"; } 2>/dev/null | sha256sum | cut -c1-16)")
}
if [ "${1:-}" = --id ]; then checkout_id "${2:?usage: build-image.sh --id CHECKOUT}"; exit 0; fi
checkout="$(cd "${1:?usage: build-image.sh CHECKOUT OUT_DIR [trixie|bookworm]}" && pwd)"
out="${2:?usage: build-image.sh CHECKOUT OUT_DIR [trixie|bookworm]}"
suite="${3:-trixie}"
here="$(cd "$(dirname "$0")" && pwd)"
cache="${BOX_CACHE:-/var/tmp/table-companion-box}"
key="$(cat "$here/build-base.sh" "$here/binfmt.sh" | sha256sum | cut -c1-16)"
base="$cache/base-$suite-$key"
root="$out/root"
step() { printf '[%s] build-image %s: %s\n' "$(date +%T)" "$suite" "$*" >&2; }
t0=$(date +%s)
id="$(checkout_id "$checkout")"           # what is copied below
mkdir -p "$out"
rm -f "$out/checkout-id"
: >"$out/timings"
timing() { echo "$1 $(( $(date +%s) - t0 ))" >>"$out/timings"; }

. "$here/binfmt.sh"
ensure_binfmt
if [ ! -f "$base/root.tar" ]; then
  step "no cached base system ($base): building it from Debian's packages"
  "$here/build-base.sh" "$base" "$suite"
else
  step "cached base system: $base"
fi
timing base_ready

cleanup() {
  for m in dev/pts dev proc sys; do mountpoint -q "$root/$m" 2>/dev/null && umount -l "$root/$m"; done
  return 0
}
trap cleanup EXIT
cleanup
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" --numeric-owner -xf "$base/root.tar"
mount --bind /dev "$root/dev"; mount --bind /dev/pts "$root/dev/pts"
mount -t proc proc "$root/proc"; mount -t sysfs sysfs "$root/sys"
cp -L /etc/resolv.conf "$root/etc/resolv.conf"

copy_checkout() {   # the checkout as a user has it after git clone (or a download of it)
  mkdir -p "$1"
  tar -C "$checkout" --exclude=./.venv --exclude='*/__pycache__' --exclude=./.pytest_cache \
    --exclude=./.hypothesis --exclude=./var --exclude=./screenshots --exclude=./.git -cf - . |
    tar -C "$1" -xf -
}

step "the test's additions"
chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin DEBIAN_FRONTEND=noninteractive \
  sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends python3-evdev' \
  >"$out/extras.log" 2>&1 || { tail -20 "$out/extras.log" >&2; exit 1; }
if [ "$suite" = trixie ]; then
  # The box's own network (tests/box/test_box.py): Wi-Fi radios simulated by the kernel's
  # mac80211_hwsim (three of them: the box's, a phone's, a venue's access point; the last two
  # are moved into network namespaces by the test, so NetworkManager leaves them alone),
  # hostapd for the venue's access point, and SSH as Raspberry Pi OS ships it (that it does
  # not answer on the box's own Wi-Fi is tested).
  chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin DEBIAN_FRONTEND=noninteractive \
    sh -c 'apt-get install -y -qq --no-install-recommends hostapd openssh-server' \
    >>"$out/extras.log" 2>&1 || { tail -20 "$out/extras.log" >&2; exit 1; }
  chroot "$root" systemctl disable hostapd.service >/dev/null 2>&1 || true
  echo mac80211_hwsim >"$root/etc/modules-load.d/test-radios.conf"
  echo 'options mac80211_hwsim radios=3' >"$root/etc/modprobe.d/test-radios.conf"
  install -d "$root/etc/NetworkManager/conf.d"
  printf '[keyfile]\nunmanaged-devices=mac:02:00:00:00:01:00;mac:02:00:00:00:02:00\n' \
    >"$root/etc/NetworkManager/conf.d/90-test-radios.conf"
  install -m 0644 "$here/guest/wifi_phone.py" "$root/usr/local/lib/wifi_phone.py"
fi
install -d "$root/etc/table-companion"
install -m 0644 "$here/guest/hardware.toml" "$root/etc/table-companion/hardware.toml"
install -m 0644 "$here/guest/table.env" "$root/etc/table-companion/table.env"
install -m 0755 "$here/touch_inject.py" "$root/usr/local/bin/touch_inject.py"
install -m 0644 "$here/guest/touch-stand-in.service" "$root/etc/systemd/system/"
chroot "$root" systemctl enable touch-stand-in.service >/dev/null 2>&1
install -d "$root/etc/systemd/journald.conf.d"
install -m 0644 "$here/guest/journal-to-serial.conf" "$root/etc/systemd/journald.conf.d/"

if [ "$suite" = bookworm ]; then
  step "the checkout, as user pi has it after git clone"
  copy_checkout "$root/home/pi/table-companion"
  chroot "$root" chown -R pi:pi /home/pi/table-companion
  step "as pi: ./table.sh install"
  chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin LANG=C.UTF-8 \
    /usr/sbin/runuser -u pi -- /bin/bash -c 'cd ~/table-companion && HOME=/home/pi ./table.sh install' \
    >"$out/install.log" 2>&1 || { tail -40 "$out/install.log" >&2; exit 1; }
  timing installed
  grep '^install:' "$out/install.log" >&2 || true
fi
chroot "$root" apt-get clean
rm -f "$root/etc/resolv.conf"
if [ "$suite" = trixie ]; then
  ln -s ../run/NetworkManager/resolv.conf "$root/etc/resolv.conf"
  # The Pi's boot partition: the VM's second disk (bootfs.img, below). Under QEMU's emulation
  # udev names disks by label a minute or more into the boot (on a Pi, seconds).
  sed -i '/LABEL=bootfs/d' "$root/etc/fstab"
  echo 'LABEL=bootfs /boot/firmware vfat defaults,nofail,x-systemd.device-timeout=180s 0 2' \
    >>"$root/etc/fstab"
  # On a Pi the card's boot partition is there at power-on and mounted long before cloud-init
  # looks for its seed on it. Here the disk's label comes late, and once cloud-init's own mount
  # of it ran while systemd was checking and mounting it: "Failed to mount /dev/vdb when
  # looking for data", no user-data, no install. cloud-init's first stage waits for the mount,
  # as it in effect does on a Pi, and reads the seed where it is mounted.
  install -d "$root/etc/systemd/system/cloud-init-local.service.d"
  printf '[Unit]\nWants=boot-firmware.mount\nAfter=boot-firmware.mount\n' \
    >"$root/etc/systemd/system/cloud-init-local.service.d/10-boot-partition.conf"
fi
cleanup

step "kernel and root.img"
cp "$(ls "$root"/boot/vmlinuz-* | sort -V | tail -n 1)" "$out/vmlinuz"
cp "$(ls "$root"/boot/initrd.img-* | sort -V | tail -n 1)" "$out/initrd.img"
rm -f "$out/root.img"
mkfs.ext4 -q -F -L root -d "$root" "$out/root.img" 4G
rm -rf "$root"

if [ "$suite" = trixie ]; then
  step "the boot partition: user-data, meta-data and the folder table-companion (docs/install-pi.md)"
  rm -f "$out/bootfs.img"
  truncate -s 128M "$out/bootfs.img"
  mkfs.vfat -n bootfs "$out/bootfs.img" >/dev/null
  stage="$out/bootfs"
  rm -rf "$stage"; mkdir -p "$stage"
  copy_checkout "$stage/table-companion"
  cp "$checkout/hardware/box/cloud-init/user-data" "$checkout/hardware/box/cloud-init/meta-data" "$stage/"
  MTOOLS_SKIP_CHECK=1 mcopy -s -Q -i "$out/bootfs.img" "$stage"/* ::/
  rm -rf "$stage"
  timing bootfs_ready
  step "first boot: cloud-init installs the table from user-data (nobody types)"
  python3 "$here/first_boot.py" "$out" >&2 || exit 1
  timing installed
fi
echo "$id" >"$out/checkout-id"
timing image_ready
step "done in $(( $(date +%s) - t0 )) s"
