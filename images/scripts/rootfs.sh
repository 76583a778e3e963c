# shellcheck shell=bash
# Debian root filesystems made with debootstrap from Debian's packages, kept as
# tarballs in the cache.

# Packages of kind's base image (images/base/Dockerfile of kind v0.33.0), less the ones
# for rootless and storage tests this suite does not use; plus dbus, which kind's lacks:
# the system bus that systemd-logind needs, for the kubelet's graceful node shutdown
# (an inhibitor lock, and logind's PrepareForShutdown signal, which a spec sends).
# shellcheck disable=SC2034 # read by build.sh, which sources this file
NODE_PACKAGES=systemd,dbus,conntrack,iptables,nftables,iproute2,ethtool,util-linux,mount,kmod,libseccomp2,pigz,bash,ca-certificates,curl,jq,procps
# The test images' base: busybox for the docs' busybox pods, nginx for their nginx pods.
# shellcheck disable=SC2034 # read by build.sh, which sources this file
TESTBASE_PACKAGES=busybox-static,nginx-light

# debootstrap_tar PACKAGES OUT.tar
debootstrap_tar() {
  local packages=$1 out=$2 dir
  local mirror=${DEBIAN_MIRROR:-}
  [ -n "$mirror" ] || mirror=$(debian_mirror "$DEBIAN_SUITE") || return 1
  echo "debootstrap $DEBIAN_SUITE from $mirror (the host's apt source; DEBIAN_MIRROR overrides)"
  dir=$(mktemp -d "$CACHE_DIR/rootfs.XXXXXX")
  debootstrap --variant=minbase --include="$packages" "$DEBIAN_SUITE" "$dir" "$mirror" || { rm -rf "$dir"; return 1; }
  chroot "$dir" apt-get clean
  rm -rf "$dir"/var/lib/apt/lists/* "$dir"/var/log/*.log "$dir"/var/cache/debconf/*-old
  tar -C "$dir" --numeric-owner -cf "$out.partial" . && mv "$out.partial" "$out"
  local rc=$?; rm -rf "$dir"; return $rc
}

