#!/usr/bin/env bash
# The Pi stand-in's base system: 64-bit Debian from Debian's own packages, about what Raspberry
# Pi OS Lite gives a new user (systemd, udev, sudo, python3), plus Debian's arm64 kernel for
# QEMU's `virt` machine and qemu-guest-agent (the test's hands). Two releases, as Raspberry Pi
# OS has them:
#   trixie    Debian 13, today's Raspberry Pi OS (since 2025-10-02): NetworkManager for every
#             network and cloud-init reading the boot partition's user-data (Raspberry Pi
#             Imager writes its settings there). No user yet: the first boot's cloud-init makes
#             one from user-data, as on a Pi.
#   bookworm  Debian 12, the previous Raspberry Pi OS: a first user `pi` as Imager made one.
# Nothing of the project is in it: tests/box/build-image.sh installs the project on top with
# the very commands README gives a Pi user (or the user-data of docs/install-pi.md).
#
#   tests/box/build-base.sh OUT_DIR [trixie|bookworm]   -> OUT_DIR/root.tar (the root file system)
#
# Runs as root on an x86-64 or arm64 Debian 12 or 13 host (debootstrap, qemu-user-static, binfmt).
set -euo pipefail
out="${1:?usage: build-base.sh OUT_DIR [trixie|bookworm]}"
suite="${2:-trixie}"
case "$suite" in trixie|bookworm) ;; *) echo "build-base: no such release: $suite" >&2; exit 2 ;; esac
mirror="${BOX_MIRROR:-$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)}"
mirror="${mirror:-http://deb.debian.org/debian}"
root="$out/root"
step() { printf '[%s] build-base %s: %s\n' "$(date +%T)" "$suite" "$*" >&2; }

mkdir -p "$out"
rm -rf "$root"
. "$(dirname "$0")/binfmt.sh"
ensure_binfmt

step "debootstrap $suite arm64 from $mirror"
debootstrap --arch=arm64 --variant=minbase \
  --include=ca-certificates,systemd-sysv,udev,kmod,dbus,iproute2,sudo,python3,procps,less,qemu-guest-agent,e2fsprogs \
  "$suite" "$root" "$mirror" >"$out/debootstrap.log" 2>&1 ||
  { tail -30 "$out/debootstrap.log" >&2; exit 1; }

# TLS to the registries may go through a local CA: give the root the host's CA files.
if [ -d /usr/local/share/ca-certificates ]; then
  cp -a /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
fi
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"

in_root() {   # a command in the root, with none of the host's environment
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"
}

# Before the kernel: an initramfs of the listed modules only (mkinitramfs under qemu-user
# crawls for 10+ minutes with MODULES=most). initramfs-tools first, so its own config file is
# there to edit (a file put there before it would stop dpkg at a conffile question).
step "kernel (linux-image-arm64)"
in_root apt-get install -y -qq --no-install-recommends initramfs-tools >"$out/kernel.log" 2>&1 ||
  { tail -30 "$out/kernel.log" >&2; exit 1; }
sed -i 's/^MODULES=.*/MODULES=list/' "$root/etc/initramfs-tools/initramfs.conf"
printf '%s\n' virtio_pci virtio_blk virtio_net virtio_console ext4 virtio_gpu \
  >>"$root/etc/initramfs-tools/modules"
in_root apt-get install -y -qq --no-install-recommends linux-image-arm64 >>"$out/kernel.log" 2>&1 ||
  { tail -30 "$out/kernel.log" >&2; exit 1; }

if [ "$suite" = trixie ]; then
  # Raspberry Pi OS trixie: NetworkManager for every network, cloud-init for the first boot's
  # settings (with apt: debootstrap cannot resolve cloud-init's virtual dependencies).
  step "NetworkManager and cloud-init"
  in_root apt-get install -y -qq --no-install-recommends network-manager cloud-init dosfstools \
    >"$out/trixie.log" 2>&1 || { tail -30 "$out/trixie.log" >&2; exit 1; }
fi

step "configure: hostname, network, the first user"
echo table-box > "$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 table-box\n' > "$root/etc/hosts"
echo '/dev/vda / ext4 defaults,noatime 0 1' > "$root/etc/fstab"
if [ "$suite" = trixie ]; then
  # The Pi's boot partition (FAT, label `bootfs`, at /boot/firmware) holds what Imager wrote:
  # user-data, meta-data, network-config. Raspberry Pi OS's cloud-init reads its NoCloud seed
  # from there. (build-image.sh gives the VM that disk and its line in /etc/fstab.)
  mkdir -p "$root/boot/firmware"
  cat > "$root/etc/cloud/cloud.cfg.d/99_raspberry-pi-stand-in.cfg" <<'CFG'
# As Raspberry Pi OS trixie: the first boot's settings come from the boot partition (NoCloud).
datasource_list: [ NoCloud, None ]
datasource:
  NoCloud:
    fs_label: bootfs
CFG
  # NetworkManager brings up the wired port by DHCP by itself ("Wired connection 1").
else
  mkdir -p "$root/etc/systemd/network"
  printf '[Match]\nName=en* eth*\n\n[Network]\nDHCP=yes\n' > "$root/etc/systemd/network/20-wired.network"
  in_root systemctl enable systemd-networkd.service >/dev/null 2>&1
  # A first user as Raspberry Pi Imager made one: `pi`, in sudo, with no password needed here.
  in_root useradd -m -s /bin/bash -G sudo pi
  echo 'pi ALL=(ALL) NOPASSWD: ALL' > "$root/etc/sudoers.d/010_pi-nopasswd"
  chmod 0440 "$root/etc/sudoers.d/010_pi-nopasswd"
fi
in_root apt-get clean

step "pack root.tar"
tar -C "$root" --numeric-owner -cf "$out/root.tar" .
rm -rf "$root"
step "done: $(du -h "$out/root.tar" | cut -f1)"
