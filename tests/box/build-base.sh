#!/usr/bin/env bash
# The Pi stand-in's base system: 64-bit Debian 12 (bookworm, arm64) from Debian's own packages,
# about what Raspberry Pi OS Lite gives a new user (systemd, udev, networking, sudo, python3),
# plus Debian's arm64 kernel for QEMU's `virt` machine and qemu-guest-agent (the test's hands).
# Nothing of the project is in it: tests/box/build-image.sh installs the project on top with
# the very commands README gives a Pi user.
#
#   tests/box/build-base.sh OUT_DIR     -> OUT_DIR/root.tar (the root file system)
#
# Runs as root on an x86-64 or arm64 Debian 12 host (debootstrap, qemu-user-static, binfmt).
set -euo pipefail
out="${1:?usage: build-base.sh OUT_DIR}"
mirror="${BOX_MIRROR:-$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)}"
mirror="${mirror:-http://deb.debian.org/debian}"
root="$out/root"
step() { printf '[%s] build-base: %s\n' "$(date +%T)" "$*" >&2; }

mkdir -p "$out"
rm -rf "$root"
. "$(dirname "$0")/binfmt.sh"
ensure_binfmt

step "debootstrap bookworm arm64 from $mirror"
debootstrap --arch=arm64 --variant=minbase \
  --include=ca-certificates,systemd-sysv,udev,kmod,dbus,iproute2,sudo,python3,procps,less,qemu-guest-agent,e2fsprogs \
  bookworm "$root" "$mirror" >"$out/debootstrap.log" 2>&1 ||
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

step "configure: hostname, network, the pi user"
echo table-box > "$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 table-box\n' > "$root/etc/hosts"
echo '/dev/vda / ext4 defaults,noatime 0 1' > "$root/etc/fstab"
mkdir -p "$root/etc/systemd/network"
printf '[Match]\nName=en* eth*\n\n[Network]\nDHCP=yes\n' > "$root/etc/systemd/network/20-wired.network"
in_root systemctl enable systemd-networkd.service >/dev/null 2>&1
# A first user as Raspberry Pi Imager makes one: `pi`, in sudo, with no password needed here.
in_root useradd -m -s /bin/bash -G sudo pi
echo 'pi ALL=(ALL) NOPASSWD: ALL' > "$root/etc/sudoers.d/010_pi-nopasswd"
chmod 0440 "$root/etc/sudoers.d/010_pi-nopasswd"
in_root apt-get clean

step "pack root.tar"
tar -C "$root" --numeric-owner -cf "$out/root.tar" .
rm -rf "$root"
step "done: $(du -h "$out/root.tar" | cut -f1)"
