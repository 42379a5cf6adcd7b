#!/usr/bin/env bash
# Builds, or reuses, the boot image of the soft-RoCE harness: Debian's generic
# amd64 kernel (fetched with apt-get download, unpacked with dpkg -x, never
# installed into /boot) plus a busybox initramfs with the modules rdma_rxe and
# virtio-9p need and ./init.
#
# usage: build.sh [--force]
# env:   SOFTROCE_CACHE  cache directory (default ~/.cache/rdma-verbs/softroce)
#        SOFTROCE_KPKG   kernel: a package (linux-image-6.12.117+deb12-amd64) or a
#                        series (6.12: its newest package with an apt candidate);
#                        default 6.1, Debian 12's own
#
# The image lives in $SOFTROCE_CACHE/img/<key>, key = hash(init, build.sh,
# kernel package+version, busybox version), one per kernel side by side, so that
# runs on alternating kernels reuse theirs; a series resolved here is recorded
# in $SOFTROCE_CACHE/series/<series> for run.sh. An unchanged key is reused;
# anything else is rebuilt. The last line on stderr names the image.
set -euo pipefail
export LC_ALL=C   # apt-cache output is parsed below: no translations
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

FORCE=0
case "${1:-}" in
  --force) FORCE=1 ;;
  "") ;;
  -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  *) sr_die "unknown argument: $1 (usage: build.sh [--force])" ;;
esac

T0=$(sr_now_us)
CACHE=$SOFTROCE_CACHE
mkdir -p "$CACHE"/{deb,img,series}

# One builder at a time per cache (CI and a developer, or parallel Maven modules).
exec 9>"$CACHE/.lock"
flock 9

APT_UPDATED=0
apt_update_once() {
  if [ "$APT_UPDATED" = 0 ]; then
    sr_log "apt-get update"
    as_root apt-get update -qq
    APT_UPDATED=1
  fi
}
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else sr_die "need root to run: $*"
  fi
}

# ---- host packages ----
# qemu + busybox for the guest; kmod/cpio to assemble the initramfs; the
# rdma-core user space (used in the guest through the chroot of the host root);
# xz/binutils to unpack the kernel; gcc for the native helpers tests may compile against <infiniband/verbs.h>.
PKGS=(qemu-system-x86 busybox-static kmod cpio gzip xz-utils binutils iproute2 rdma-core libibverbs1
      ibverbs-providers ibverbs-utils rdmacm-utils libibverbs-dev gcc python3 util-linux)
missing=()
for p in "${PKGS[@]}"; do
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  T=$(sr_now_us)
  apt_update_once
  sr_log "installing: ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  sr_log "packages installed in $(sr_since "$T") s"
fi

# ---- kernel package ----
# Debian's cloud flavour lacks rxe and 9p and rt/dbg/unsigned are not what we
# want: only the plain signed generic image (6.1.0-57-amd64, and the backported
# series' 6.12.117+deb12-amd64). apt-cache also lists names whose version left
# the archive, so take the newest one that still has a candidate.
newest_kpkg() {   # newest_kpkg SERIES
  local names re=${1//./\\.}
  mapfile -t names < <(apt-cache pkgnames "linux-image-$1." 2>/dev/null \
    | grep -E "^linux-image-$re\.[0-9]+(-[0-9]+|\+deb[0-9]+)-amd64$" | sort -rV)
  [ ${#names[@]} -gt 0 ] || return 0
  apt-cache policy "${names[@]}" 2>/dev/null | awk '
    /^[^ ]/ { pkg = $1; sub(/:$/, "", pkg) }
    /^  Candidate:/ && $2 != "(none)" { print pkg; exit }'
}
candidate_version() {
  apt-cache policy "$1" 2>/dev/null | awk '/^  Candidate:/ && $2 != "(none)" { print $2; exit }'
}

KPKG=${SOFTROCE_KPKG:-$SOFTROCE_DEFAULT_SERIES}
SERIES=
if sr_is_series "$KPKG"; then
  SERIES=$KPKG
  KPKG=$(newest_kpkg "$SERIES")
  if [ -z "$KPKG" ]; then apt_update_once; KPKG=$(newest_kpkg "$SERIES"); fi
  [ -n "$KPKG" ] || sr_die "apt knows no linux-image-$SERIES.*-amd64 package with a candidate"
fi
[[ $KPKG =~ ^linux-image-[0-9][A-Za-z0-9.+~-]*$ ]] || sr_die "SOFTROCE_KPKG=$KPKG is not a linux-image-* package name"
KVER=$(candidate_version "$KPKG")
if [ -z "$KVER" ]; then apt_update_once; KVER=$(candidate_version "$KPKG"); fi
[ -n "$KVER" ] || sr_die "apt has no candidate for $KPKG"
KV=${KPKG#linux-image-}
BBVER=$(dpkg-query -W -f='${Version}' busybox-static)

RECIPE=$(sr_recipe_hash "$HERE")
KEY=$(printf '%s\n' "$RECIPE" "$KPKG" "$KVER" "$BBVER" | sha256sum | cut -c1-16)
IMG=$CACHE/img/$KEY

# run.sh finds a series' image through this (written once the image exists).
record_series() {
  [ -z "$SERIES" ] && return 0
  printf '%s\n' "$KPKG" > "$CACHE/series/$SERIES.tmp" && mv -f "$CACHE/series/$SERIES.tmp" "$CACHE/series/$SERIES"
}
if [ "$FORCE" = 0 ] && [ -f "$IMG/info" ] && [ -f "$IMG/vmlinuz" ] && [ -f "$IMG/initramfs.cpio.gz" ]; then
  touch "$IMG"   # keeps it off the pruning list below
  record_series
  sr_log "reused image $KEY ($KPKG $KVER) in $(sr_since "$T0") s"
  exit 0
fi

# ---- fetch + unpack the kernel (the .deb is kept, the unpacked tree is not:
# it is ~400 MB and only needed while assembling the initramfs) ----
DEB=$CACHE/deb/${KPKG}_${KVER//:/%3a}_amd64.deb
if [ ! -s "$DEB" ]; then
  T=$(sr_now_us)
  rm -f "$CACHE/deb/${KPKG}_"*.deb
  # As root apt drops to _apt for downloads, which cannot write into $HOME.
  sandbox=()
  [ "$(id -u)" = 0 ] && sandbox=(-o APT::Sandbox::User=root)
  (cd "$CACHE/deb" && apt-get download -q "${sandbox[@]}" "$KPKG=$KVER" >/dev/null)
  [ -s "$DEB" ] || sr_die "apt-get download did not produce $DEB"
  sr_log "downloaded $KPKG $KVER ($(du -h "$DEB" | cut -f1)) in $(sr_since "$T") s"
fi

WORK=$(mktemp -d "$CACHE/build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
T=$(sr_now_us)
KT=$WORK/kernel
dpkg-deb -x "$DEB" "$KT"
# The package ships no modules.dep (postinst makes it): make one for modprobe.
depmod -b "$KT" "$KV"
sr_log "unpacked kernel + depmod in $(sr_since "$T") s"

CFG=$KT/boot/config-$KV
if [ ! -f "$CFG" ] || [ ! -f "$KT/boot/vmlinuz-$KV" ]; then
  sr_die "$KPKG has no boot/config-$KV or vmlinuz-$KV"
fi
# =m or =y both work: a built-in driver just needs no module.
for c in RDMA_RXE INFINIBAND INFINIBAND_USER_ACCESS NET_9P NET_9P_VIRTIO 9P_FS VIRTIO_PCI DUMMY CONFIGFS_FS CRYPTO_CRC32; do
  grep -Eq "^CONFIG_$c=[ym]$" "$CFG" || sr_die "$KPKG: CONFIG_$c is not =m/=y"
done
for c in IPV6 DEVTMPFS BLK_DEV_INITRD SERIAL_8250_CONSOLE TMPFS; do
  grep -q "^CONFIG_$c=y$" "$CFG" || sr_die "$KPKG: CONFIG_$c is not =y"
done

# ---- initramfs ----
# crc32_generic first: rxe asks the crypto API for "crc32" and would otherwise
# fail. ib_uverbs gives /dev/infiniband/uverbs*; rdma_ucm (with configfs) gives
# librdmacm users their device. dummy: the netdev rxe sits on (loading it
# already creates dummy0). virtio_net: the NIC of two-hosts.sh's wire (a guest
# without one, as run.sh boots it, just has no eth0).
MODS=(crc32_generic virtio_pci 9pnet_virtio 9p ib_uverbs rdma_rxe rdma_ucm dummy virtio_net)
ST=$WORK/root
MD=lib/modules/$KV
mkdir -p "$ST"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,mnt,etc,"$MD"}
cp /bin/busybox "$ST/bin/busybox"
ln -s busybox "$ST/bin/sh"
install -m 755 "$HERE/init" "$ST/init"
# Dependency order from modprobe (deps first), de-duplicated keeping the first
# occurrence: /init loads them in exactly this order with insmod.
# -C /dev/null: the host's /etc/modprobe.d must not leak in.
for m in "${MODS[@]}"; do
  modprobe -C /dev/null -d "$KT" -S "$KV" --show-depends "$m" \
    || sr_die "modprobe cannot resolve $m in $KPKG"
done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' > "$WORK/modlist"
: > "$ST/etc/modules.load"
while read -r f; do
  rel=${f#"$KT/$MD/"}
  mkdir -p "$ST/$MD/$(dirname "$rel")"
  cp "$f" "$ST/$MD/$rel"
  echo "$rel" >> "$ST/etc/modules.load"
done < "$WORK/modlist"
cp "$KT/$MD"/modules.builtin* "$KT/$MD/modules.order" "$ST/$MD/"
# So that the kernel's own request_module() (busybox modprobe) finds them too.
depmod -b "$ST" "$KV"
NMODS=$(wc -l < "$ST/etc/modules.load")
[ "$NMODS" -ge 10 ] || sr_die "only $NMODS modules resolved; expected the rxe/9p stack"

mkdir -p "$IMG.tmp"
(cd "$ST" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc -R 0:0 --quiet) \
  | gzip -6 > "$IMG.tmp/initramfs.cpio.gz"
cp "$KT/boot/vmlinuz-$KV" "$IMG.tmp/vmlinuz"
# The bzImage decompresses itself, which takes ~3 s under TCG - as long as the
# rest of the boot. Unpack the vmlinux ELF once here and let qemu enter it
# directly through its PVH note (XEN_ELFNOTE_PHYS32_ENTRY, type 0x12); run.sh
# falls back to the bzImage when this is not possible.
extract_vmlinux() {
  local bz=$1 out=$2 magic tool off
  for magic in 'xz:\xfd7zXZ\x00' 'zstd:\x28\xb5\x2f\xfd' 'gzip:\x1f\x8b\x08'; do
    tool=${magic%%:*}
    command -v "$tool" >/dev/null || continue
    # Any match may be a false positive inside the setup code: try them all.
    while read -r off; do
      tail -c +$((off + 1)) "$bz" | "$tool" -dc 2>/dev/null > "$out" || true
      if [ -s "$out" ] && readelf -n "$out" 2>/dev/null | grep -q 'Unknown note type: (0x00000012)'; then
        return 0
      fi
    done < <(LC_ALL=C grep -obUaP "${magic#*:}" "$bz" | cut -d: -f1)
  done
  rm -f "$out"
  return 1
}
if command -v readelf >/dev/null && extract_vmlinux "$KT/boot/vmlinuz-$KV" "$IMG.tmp/vmlinux"; then
  BOOT=pvh
else
  BOOT=bzimage
  sr_log "WARNING: no PVH-bootable vmlinux could be extracted; booting the bzImage (~3 s slower)"
fi
cat > "$IMG.tmp/info" <<EOF
KEY=$KEY
RECIPE=$RECIPE
KPKG=$KPKG
KVER=$KVER
KV=$KV
BUSYBOX=$BBVER
MODULES=$NMODS
BOOT=$BOOT
BUILT=$(date -u +%Y-%m-%dT%H:%M:%SZ)
EOF
rm -rf "$IMG" && mv "$IMG.tmp" "$IMG"
record_series

# Keep the three newest images of each kernel package (another checkout may still
# use an older init); a running guest does not care, qemu has read its kernel and
# initrd at start.
declare -A kept=()
# shellcheck disable=SC2045  # names are hex keys; newest first is what ls -t gives
for old in $(ls -1t "$CACHE/img"); do
  p=$(sed -n 's/^KPKG=//p' "$CACHE/img/$old/info" 2>/dev/null)
  kept[$p]=$(( ${kept[$p]:-0} + 1 ))
  [ "${kept[$p]}" -le 3 ] || rm -rf "${CACHE:?}/img/$old"
done
# Kernel packages no kept image was built from go too (~70 MB each).
keep=$(cat "$CACHE"/img/*/info 2>/dev/null | awk -F= '$1 == "KPKG" { p = $2 } $1 == "KVER" { gsub(":", "%3a", $2); print p "_" $2 "_amd64.deb" }')
for d in "$CACHE"/deb/*.deb; do
  [ -e "$d" ] || continue
  grep -qxF "$(basename "$d")" <<<"$keep" || rm -f "$d"
done

sr_log "built image $KEY: $KPKG $KVER, $NMODS modules, $BOOT boot, initramfs $(du -h "$IMG/initramfs.cpio.gz" | cut -f1), in $(sr_since "$T0") s"
