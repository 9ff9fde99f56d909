#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Build, or reuse, the debug guest image: Debian 12's 6.12 kernel built from
# its own linux-source package with Debian's own config, trimmed to the
# modules the guest loads (make localmodconfig), plus the checkers that
# catch our mistakes: lockdep (PROVE_LOCKING), DEBUG_ATOMIC_SLEEP, generic
# KASAN, kmemleak, DEBUG_LIST, and fault injection (FAILSLAB, with the
# stack-trace filter that aims it at one module).
#
#   tests/vm/build-debug-kernel.sh      prints the image directory (last line)
#
# The image is the bookworm image (tests/vm/build-image.sh) with this kernel
# added: vmlinux-KVER, an initramfs without modules (the root and 9p drivers
# are built in), its modules and the tree that out-of-tree modules build
# against in rootfs/ and root.ext4, and DKMS told where the kernel's source
# is (a self-built kernel has no package for find-kernel-source.sh to ask).
# It is cached as ${RPCRDMA_INLINE_CACHE:-/var/cache/rpcrdma-inline}/images/
# debug-6.12-KEY, KEY hashing this script and the bookworm image it starts
# from. The kernel is built on the host, whose compiler is bookworm's gcc
# like the image's.
set -euo pipefail

log() { printf '[build-debug-kernel] %s\n' "$*" >&2; }
die() {
	log "error: $*"
	exit 1
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self=$(readlink -f "${BASH_SOURCE[0]}")
cache=${RPCRDMA_INLINE_CACHE:-/var/cache/rpcrdma-inline}
series=6.12
[[ $(id -u) -eq 0 ]] || die "must run as root (the image's files are root's)"
for tool in make gcc flex bison bc cpio gzip mkfs.ext4 flock; do
	command -v "$tool" >/dev/null || die "'$tool' is missing on the host (tests/install-host-deps.sh installs it)"
done
[[ -f /usr/include/libelf.h && -f /usr/include/openssl/ssl.h ]] ||
	die "the kernel build needs libelf-dev and libssl-dev on the host"

mkdir -p "$cache/images"
base=$(flock "$cache/.image-lookup.lock" "$here/build-image.sh" bookworm | tail -n 1)
read -r base_kver pkgver _ < <(awk -v s="$series" '$3 == s' "$base/kernels")
[[ -n ${base_kver:-} ]] || die "no $series kernel in $base"
upstream=${pkgver%%-*}
kver=$upstream-rpcrdma-debug
key=$({
	cat "$self"
	echo "$base"
} | sha256sum | cut -c1-12)
final=$cache/images/debug-$series-$key
if [[ -f $final/info ]]; then
	log "reusing $final"
	echo "$final"
	exit 0
fi
exec 9>"$cache/images/.debug-$series-$key.lock"
flock 9
if [[ -f $final/info ]]; then
	log "reusing $final (built meanwhile)"
	echo "$final"
	exit 0
fi
tmp=$cache/images/.tmp-debug-$series-$key.$$
rm -rf "$cache/images/.tmp-debug-$series-$key".*
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/build"
t0=$SECONDS

# ---------------------------------------------------------------- config
log "kernel $kver from linux-source-$series $pkgver, Debian's config of $base_kver"
tar -xf "$base/rootfs/usr/src/linux-source-$series.tar.xz" -C "$tmp/build"
src=$(echo "$tmp"/build/linux-source-*)
cp "$base/rootfs/boot/config-$base_kver" "$src/.config"

# The modules the guest loads: what tests/guest and the NFS server ask for,
# with their dependencies in Debian's own build of this kernel
{
	echo "Module Size Used by"
	for m in rdma_rxe rdma_cm rdma_ucm ib_uverbs ib_umad rpcrdma nfsd nfsv3 nfsv4 \
		dummy virtio_pci virtio_blk ext4 9pnet_virtio 9p virtio_rng \
		crc32c_generic libcrc32c; do
		modprobe -d "$base/rootfs" -S "$base_kver" --show-depends "$m" 2>/dev/null |
			awk '$1 == "insmod" { n = split($2, p, "/"); sub(/\.ko.*/, "", p[n]); print p[n] }'
	done | sort -u | awk '{ print $1, 0, 0 }'
} >"$tmp/lsmod"
log "localmodconfig: $(($(wc -l <"$tmp/lsmod") - 1)) modules"
make -s -C "$src" LSMOD="$tmp/lsmod" localmodconfig </dev/null >"$tmp/config.log" 2>&1 ||
	{ tail -n 30 "$tmp/config.log" >&2; die "make localmodconfig failed"; }

cfg() { "$src/scripts/config" --file "$src/.config" "$@"; }
# No signing keys here, no BTF (pahole takes minutes), no debug info, no
# module compression (bookworm's kmod reads no gzip, and 6.12 falls back
# to gzip when xz is turned off)
cfg --set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
	--disable MODULE_SIG --disable MODULE_SIG_ALL \
	--disable DEBUG_INFO_DWARF5 --disable DEBUG_INFO_DWARF4 \
	--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT --enable DEBUG_INFO_NONE \
	--disable DEBUG_INFO_BTF --disable MODULE_COMPRESS \
	--disable MODULE_COMPRESS_XZ --disable MODULE_COMPRESS_GZIP \
	--set-str LOCALVERSION "-rpcrdma-debug" --disable LOCALVERSION_AUTO
# Root, 9p and the virtio devices built in: the initramfs needs no module
cfg --enable VIRTIO --enable VIRTIO_PCI --enable VIRTIO_BLK --enable EXT4_FS \
	--enable JBD2 --enable FS_MBCACHE --enable NETFS_SUPPORT --enable NET_9P \
	--enable NET_9P_VIRTIO --enable 9P_FS --enable CRC16 --enable CRYPTO_CRC32C \
	--enable LIBCRC32C
# The checkers
cfg --enable PROVE_LOCKING --enable DEBUG_ATOMIC_SLEEP --enable DEBUG_LIST \
	--enable KASAN --enable KASAN_GENERIC --enable KASAN_OUTLINE \
	--disable KASAN_INLINE \
	--enable DEBUG_KMEMLEAK --set-val DEBUG_KMEMLEAK_MEM_POOL_SIZE 40000 \
	--disable DEBUG_KMEMLEAK_DEFAULT_OFF --disable DEBUG_KMEMLEAK_AUTO_SCAN \
	--enable FAULT_INJECTION --enable FAILSLAB --enable FAULT_INJECTION_DEBUG_FS \
	--enable FAULT_INJECTION_STACKTRACE_FILTER
make -s -C "$src" olddefconfig >>"$tmp/config.log" 2>&1
for opt in PROVE_LOCKING DEBUG_ATOMIC_SLEEP KASAN_GENERIC DEBUG_KMEMLEAK DEBUG_LIST \
	FAILSLAB FAULT_INJECTION_STACKTRACE_FILTER VIRTIO_BLK EXT4_FS 9P_FS NET_9P_VIRTIO; do
	grep -q "^CONFIG_$opt=y" "$src/.config" || die "CONFIG_$opt did not stay =y (see $tmp/config.log)"
done
grep -q '^CONFIG_SUNRPC_XPRT_RDMA=m' "$src/.config" || die "CONFIG_SUNRPC_XPRT_RDMA is not =m"
! grep -q '^CONFIG_MODULE_COMPRESS=y' "$src/.config" || die "modules would be compressed"
grep -q '^CONFIG_RDMA_RXE=m' "$src/.config" || die "CONFIG_RDMA_RXE is not =m"

# ---------------------------------------------------------------- build
t1=$SECONDS
log "building $kver with $(nproc) jobs"
make -C "$src" -j"$(nproc)" vmlinux modules >"$tmp/build.log" 2>&1 ||
	{ tail -n 40 "$tmp/build.log" >&2; die "the kernel build failed"; }
[[ $(make -s -C "$src" kernelrelease) == "$kver" ]] || die "kernelrelease is not $kver"
t_build=$((SECONDS - t1))
log "built in $t_build s"

# ---------------------------------------------------------------- image
mkdir -p "$tmp/image"
cp -al "$base/rootfs" "$tmp/image/rootfs"
rootfs=$tmp/image/rootfs
make -s -C "$src" INSTALL_MOD_PATH="$rootfs" INSTALL_MOD_STRIP=1 DEPMOD=/bin/true \
	modules_install >>"$tmp/build.log" 2>&1
rm -f "$rootfs/lib/modules/$kver/build" "$rootfs/lib/modules/$kver/source"
headers=/usr/src/linux-headers-$kver
(cd "$src" && srctree=. SRCARCH=x86 CC=gcc HOSTCC=gcc \
	sh scripts/package/install-extmod-build "$rootfs$headers") >>"$tmp/build.log" 2>&1
cp "$src/.config" "$rootfs$headers/.config"
cp "$src/.config" "$rootfs/boot/config-$kver"
cp "$src/System.map" "$rootfs/boot/System.map-$kver"
ln -s "$headers" "$rootfs/lib/modules/$kver/build"
depmod -b "$rootfs" "$kver"
# DKMS: no package says where this kernel's source is; name it
mkdir -p "$rootfs/etc/dkms"
cat >"$rootfs/etc/dkms/rpcrdma-inline.conf" <<EOF
# tests/vm/build-debug-kernel.sh: $kver is built from linux-source-$series
MAKE[0]="make KVER=\${kernelver} KDIR=\${kernel_source_dir} KSRC=/usr/src/linux-source-$series.tar.xz"
PRE_BUILD=""
EOF
cp "$src/vmlinux" "$tmp/image/vmlinux-$kver"

# The bookworm image's initramfs, without its modules
mkdir -p "$tmp/initramfs"
gzip -dc "$base/initramfs-$base_kver.cpio.gz" | (cd "$tmp/initramfs" && cpio -id --quiet)
rm -rf "$tmp/initramfs/modules"/*
: >"$tmp/initramfs/modules.list"
(cd "$tmp/initramfs" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -6 >"$tmp/image/initramfs-$kver.cpio.gz"

used_kib=$(du -sk --apparent-size "$rootfs" | cut -f1)
size_mib=$(((used_kib * 11 / 10) / 1024 + 1536))
mkfs.ext4 -q -F -L rpcrdma-root -i 8192 -d "$rootfs" "$tmp/image/root.ext4" "${size_mib}M" >&2
echo "$kver $pkgver $series-debug" >"$tmp/image/kernels"
{
	echo "kernel=$kver"
	echo "from=linux-source-$series $pkgver, config-$base_kver + localmodconfig + checkers"
	echo "base=$base"
	echo "key=$key"
	echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "build_seconds=$t_build"
	echo "total_seconds=$((SECONDS - t0))"
} >"$tmp/image/info"
mv -T "$tmp/image" "$final"
rm -rf "$tmp"
trap - EXIT
log "built $final in $((SECONDS - t0)) s (kernel build $t_build s)"
echo "$final"
