#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Build, or reuse, the cached guest image of one Debian release.
#
#   tests/vm/build-image.sh DIST        DIST: bookworm | trixie
#
# The image lives outside the repo, under
#   ${RPCRDMA_INLINE_CACHE:-/var/cache/rpcrdma-inline}/images/DIST-KEY/
# where KEY hashes this script, the package list and the kernel package
# versions resolved from the mirror's current package lists.  The directory is
# printed on stdout (last line); everything else goes to stderr.
#
# Contents of the image directory:
#   rootfs/                      mmdebstrap root directory (also a chroot)
#   root.ext4                    rootfs/ as an ext4 image, with free room
#   vmlinux-KVER                 uncompressed kernel (bzImage-KVER if that fails)
#   initramfs-KVER.cpio.gz       busybox + the modules to mount root and 9p
#   kernels                      one line a kernel: KVER PACKAGE-VERSION SERIES
#   info                         what was built, from which sources, how long
#
# Environment:
#   RPCRDMA_INLINE_CACHE       cache root (default /var/cache/rpcrdma-inline)
#   RPCRDMA_INLINE_KSERIES     kernel series to install (default per DIST:
#                              bookworm "6.1 6.12": Debian 12's, trixie
#                              "6.12 7.2 7.3": Debian 13's own 6.12, and
#                              7.2 and 7.3 from trixie-backports); a word
#                              SERIES=X.Y.Z takes that point release of the
#                              series instead of the newest (6.12=6.12.113,
#                              tests/lib.sh series_image)
#   RPCRDMA_INLINE_NO_UPDATE=1 do not refresh the package lists when some exist
#
# Mirrors are those of the host's apt sources, with the suite names changed.
set -euo pipefail

log() { printf '[build-image] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
	sed -n '3,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
	exit 2
}

[[ $# -eq 1 ]] || usage
dist=$1
case $dist in
bookworm)
	kseries_default="6.1 6.12"
	dist_pkgs="gcc"
	backports=0
	;;
trixie)
	kseries_default="6.12 7.2 7.3"
	dist_pkgs="gcc-14 gcc"
	backports=1
	;;
-h | --help) usage ;;
*) die "unknown DIST '$dist' (bookworm or trixie)" ;;
esac
kseries=${RPCRDMA_INLINE_KSERIES:-$kseries_default}

# The guest userland.  initramfs-tools is named so that apt does not pick
# dracut for the kernel's initramfs-tool dependency; busybox-static provides
# the initramfs's shell.
common_pkgs="busybox-static initramfs-tools kmod dkms build-essential make \
dwarves xz-utils zstd bc nfs-kernel-server nfs-common rpcbind iproute2 \
rdma-core ibverbs-utils fio procps util-linux e2fsprogs sparse"

self=$(readlink -f "${BASH_SOURCE[0]}")
cache=${RPCRDMA_INLINE_CACHE:-/var/cache/rpcrdma-inline}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

for tool in mmdebstrap apt-get apt-cache mkfs.ext4 cpio gzip xz zstd flock modprobe sha256sum unshare; do
	command -v "$tool" >/dev/null || die "'$tool' is missing on the host (see tests/vm/README.md)"
done
[[ $(id -u) -eq 0 ]] || die "must run as root (mmdebstrap root mode, chroot)"

# ---------------------------------------------------------------- mirrors
# Print "URI SUITE" for every enabled deb source of the host.
host_sources() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -f $f ]] || continue
		awk '
			function flush() {
				if (types ~ /(^| )deb( |$)/ && enabled != "no") {
					n = split(uris, U, " "); m = split(suites, S, " ")
					for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) print U[i], S[j]
				}
				types = uris = suites = enabled = ""
			}
			/^#/ { next }
			/^[ \t]*$/ { flush(); next }
			/^[A-Za-z-]+:/ {
				key = tolower($1); sub(/:$/, "", key); $1 = ""; val = $0; sub(/^ +/, "", val)
				if (key == "types") types = val
				else if (key == "uris") uris = val
				else if (key == "suites") suites = val
				else if (key == "enabled") enabled = tolower(val)
			}
			END { flush() }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[[ -f $f ]] || continue
		awk '$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
				print $i, $(i + 1)
			}' "$f"
	done
}

# Map the host's suites (X, X-updates, X-security, ...) onto DIST.
declare -A uri_for=()
while read -r uri suite; do
	[[ -n $uri && -n $suite ]] || continue
	base=${suite%%-*}
	suffix=${suite#"$base"}
	[[ -v "uri_for[x$suffix]" ]] || uri_for[x$suffix]=${uri%/}
done < <(host_sources)
[[ -v "uri_for[x]" ]] || die "no plain release suite in the host's apt sources"
suites=("$dist" "$dist-updates" "$dist-security")
((backports)) && suites+=("$dist-backports")
sources=()
for suite in "${suites[@]}"; do
	suffix=${suite#"$dist"}
	uri=${uri_for[x$suffix]:-}
	if [[ -z $uri ]]; then
		case $suffix in
		-updates | -backports) uri=${uri_for[x]} ;;
		*) log "warning: host has no '$suffix' source; skipping $suite"; continue ;;
		esac
	fi
	if [[ -f $keyring ]]; then
		sources+=("deb [signed-by=$keyring] $uri $suite main")
	else
		sources+=("deb $uri $suite main")
	fi
done

# ---------------------------------------------------------------- resolve kernels
# A private apt state holding DIST's package lists, so kernel versions come from
# the mirror itself and not from whatever the host's lists say.
aptdir=$cache/apt/$dist
mkdir -p "$aptdir"/etc/apt/{apt.conf.d,preferences.d,sources.list.d,trusted.gpg.d} \
	"$aptdir"/lists/partial "$aptdir"/cache/archives/partial
: >>"$aptdir/status"
printf '%s\n' "${sources[@]}" >"$aptdir/etc/apt/sources.list"
pinfile=$aptdir/etc/apt/preferences.d/kernel-backports
if ((backports)); then
	# linux-image pre-depends on linux-base from backports; headers need the
	# backports kbuild and compiler packages.  Pin just those.
	pkgs="linux-base linux-compiler-gcc-*"
	for s in $kseries; do pkgs+=" linux-image-${s%%=*}* linux-headers-${s%%=*}* linux-kbuild-${s%%=*}* linux-source-${s%%=*}"; done
	printf 'Package: %s\nPin: release n=%s-backports\nPin-Priority: 500\n' "$pkgs" "$dist" >"$pinfile"
else
	rm -f "$pinfile"
fi
aptopts=(-o "Dir::Etc=$aptdir/etc/apt" -o "Dir::State::Lists=$aptdir/lists"
	-o "Dir::State::status=$aptdir/status" -o "Dir::Cache=$aptdir/cache"
	-o Dir::Cache::pkgcache=pkgcache.bin -o Dir::Cache::srcpkgcache=srcpkgcache.bin
	-o Debug::NoLocking=1 -o Acquire::Languages=none -o APT::Architecture=amd64
	-o APT::Architectures::=amd64)
if [[ ${RPCRDMA_INLINE_NO_UPDATE:-0} == 1 ]] && compgen -G "$aptdir/lists/*Packages*" >/dev/null; then
	log "RPCRDMA_INLINE_NO_UPDATE=1: using the package lists already in $aptdir"
elif ! apt-get "${aptopts[@]}" -qq update >&2; then
	compgen -G "$aptdir/lists/*Packages*" >/dev/null || die "apt-get update for $dist failed"
	log "warning: apt-get update for $dist failed; using the package lists from before"
fi
apt_cache() { apt-cache "${aptopts[@]}" "$@"; }

# Print "KVER VERSION PACKAGE" for kernel series $1: the linux-image package
# whose version equals the linux-source-$1 candidate, or, for SERIES=X.Y.Z,
# the newest linux-source-SERIES of upstream version X.Y.Z.  The signed image
# is taken where it is there; Debian's security archive publishes the
# unsigned one (same kernel, linux-image-KVER-unsigned) first, and the signed
# package follows hours or days later.
resolve_series() {
	local s=${1%%=*} point="" ver name re names
	[[ $1 == *=* ]] && point=${1#*=}
	if [[ -n $point ]]; then
		ver=$(apt_cache madison "linux-source-$s" |
			awk -F'|' -v p="$point" '{ gsub(/ /, "", $2) } index($2, p "-") == 1 { print $2 }' | sort -rV | head -n 1)
		[[ -n $ver ]] || die "no linux-source-$s of version $point in $dist"
	else
		ver=$(apt_cache policy "linux-source-$s" | awk '$1 == "Candidate:" { print $2 }')
	fi
	[[ -n $ver && $ver != "(none)" ]] || die "no linux-source-$s in $dist"
	# A kernel's own package has an ABI after the series (6.1.0-57,
	# 6.12.118+deb12); linux-image-6.12-amd64, the metapackage that
	# bookworm-security publishes at the same version as the source, has none
	re="^linux-image-${s//./\\.}((\\.[0-9]+)+(-[0-9]+)?|-[0-9]+)(\\+deb[0-9]+)?-amd64(-unsigned)?\$"
	mapfile -t names < <(apt_cache pkgnames linux-image- | grep -E "$re" | sort -rV)
	((${#names[@]})) || die "no linux-image package of series $s in $dist"
	# madison prints "PACKAGE | VERSION | ...": the signed name sorts first
	name=$(apt_cache madison "${names[@]}" |
		awk -F'|' -v v="$ver" '{ gsub(/ /, "", $1); gsub(/ /, "", $2) } $2 == v { print $1 }' |
		LC_ALL=C sort -u | head -n 1)
	[[ -n $name ]] || die "no linux-image (signed or -unsigned) for linux-source-$s $ver in $dist"
	kver=${name#linux-image-}
	echo "${kver%-unsigned} $ver $name"
}

kernels=()   # "KVER VERSION SERIES"
includes=()
for s in $kseries; do
	read -r kver ver image < <(resolve_series "$s")
	s=${s%%=*}
	log "kernel $s: $image $ver"
	kernels+=("$kver $ver $s")
	includes+=("$image=$ver" "linux-headers-$kver=$ver" "linux-source-$s=$ver")
done
# shellcheck disable=SC2206 # word splitting of the package lists is intended
includes+=($common_pkgs $dist_pkgs)

key=$({
	cat "$self"
	echo "$dist"
	printf '%s\n' "${includes[@]}"
} | sha256sum | cut -c1-12)
images=$cache/images
final=$images/$dist-$key
mkdir -p "$images"

if [[ -f $final/info ]]; then
	log "reusing $final"
	echo "$final"
	exit 0
fi

# One builder per key; a killed build leaves at most a .tmp dir, removed here.
exec 9>"$images/.$dist-$key.lock"
flock 9
if [[ -f $final/info ]]; then
	log "reusing $final (built meanwhile)"
	echo "$final"
	exit 0
fi
# Remove a build directory, unmounting whatever a killed build left in it.
remove_tree() {
	local m
	while read -r m; do
		umount -l "$m" 2>/dev/null || true
	done < <(awk -v d="$1/" 'index($2 "/", d) == 1 { print $2 }' /proc/mounts | sort -r)
	rm -rf --one-file-system "$1"
}
for stale in "$images/.tmp-$dist-$key".*; do
	[[ -e $stale ]] || continue
	log "removing stale $stale"
	remove_tree "$stale"
done
tmp=$images/.tmp-$dist-$key.$$
trap 'remove_tree "$tmp"' EXIT
mkdir -p "$tmp"

# ---------------------------------------------------------------- rootfs
t0=$SECONDS
debs=$cache/debs/$dist
mkdir -p "$debs"
log "building $dist rootfs (mmdebstrap) into $tmp"
mm_args=(--variant=minbase --mode=root --format=directory
	--aptopt='Acquire::Languages "none"'
	--dpkgopt='path-exclude=/usr/share/man/*'
	--dpkgopt='path-exclude=/usr/share/locale/*'
	--dpkgopt='path-include=/usr/share/locale/locale.alias'
	--dpkgopt='path-exclude=/usr/share/doc/*'
	--dpkgopt='path-include=/usr/share/doc/*/copyright'
	--skip=essential/unlink
	--include="$(
		IFS=,
		echo "${includes[*]}"
	)"
	# Reuse downloaded packages: hard links into the chroot's apt cache and back.
	--setup-hook="mkdir -p \"\$1/var/cache/apt/archives\" && { cp -al '$debs'/. \"\$1/var/cache/apt/archives/\" 2>/dev/null || cp -a '$debs'/. \"\$1/var/cache/apt/archives/\"; }"
	--customize-hook="for f in \"\$1\"/var/cache/apt/archives/*.deb; do [ -e \"\$f\" ] || continue; [ -e '$debs'/\"\${f##*/}\" ] || ln \"\$f\" '$debs'/ 2>/dev/null || cp \"\$f\" '$debs'/; done"
)
if ((backports)); then
	mm_args+=(--setup-hook="mkdir -p \"\$1/etc/apt/preferences.d\" && cp '$pinfile' \"\$1/etc/apt/preferences.d/\"")
fi
# The guest boots with its own initramfs: do not make the distribution's.
# A private mount namespace: the chroot's mounts go away even if killed.
INITRD=No unshare --mount --propagation private -- \
	mmdebstrap "${mm_args[@]}" "$dist" "$tmp/rootfs" "${sources[@]}" >&2
t_mm=$((SECONDS - t0))

rootfs=$tmp/rootfs
printf '%s\n' "# root is mounted by the initramfs of tests/vm" "/dev/vda / ext4 rw,relatime 0 0" >"$rootfs/etc/fstab"
echo "rpcrdma-guest" >"$rootfs/etc/hostname"
printf '%s\n' "127.0.0.1 localhost" "127.0.1.1 rpcrdma-guest" "::1 localhost ip6-localhost ip6-loopback" >"$rootfs/etc/hosts"
mkdir -p "$rootfs/src" "$rootfs/out" "$rootfs/export"
rm -f "$rootfs/etc/machine-id" "$rootfs"/boot/initrd.img-*
: >"$rootfs/etc/machine-id"

# ---------------------------------------------------------------- kernels
# Decompress the kernel inside a bzImage (what scripts/extract-vmlinux does).
extract_vmlinux() {
	local in=$1 out=$2 magic cmd off
	for magic in '\x1f\x8b\x08:gzip -dc' '\xfd\x37\x7a\x58\x5a\x00:xz -dc' \
		'\x28\xb5\x2f\xfd:zstd -dcq' '\x5d\x00\x00\x00:xz -dc --format=lzma' \
		'\x02\x21\x4c\x18:lz4 -dcq' 'BZh:bzip2 -dc'; do
		cmd=${magic#*:}
		command -v "${cmd%% *}" >/dev/null || continue
		while read -r off; do
			# shellcheck disable=SC2086 # cmd holds a command and its options
			tail -c "+$((off + 1))" "$in" | $cmd >"$out" 2>/dev/null || true
			if [[ $(head -c 4 "$out" | od -An -tx1 | tr -d ' ') == 7f454c46 ]]; then
				return 0
			fi
		done < <(LC_ALL=C grep -obUaP "${magic%%:*}" "$in" | cut -d: -f1)
	done
	rm -f "$out"
	return 1
}

# Modules the initramfs loads, in order, with their dependencies.
initramfs_modules() {
	local kver=$1 m line path
	declare -A seen=()
	for m in virtio_pci virtio_blk crc32c crc32c_generic ext4 9pnet_virtio 9p virtio_rng; do
		while read -r line; do
			[[ $line == insmod\ * ]] || continue
			path=${line#insmod }
			path=${path%% *}
			path=${path#"$rootfs"}
			[[ -v "seen[$path]" ]] && continue
			seen[$path]=1
			echo "$path"
		done < <(modprobe -d "$rootfs" -S "$kver" --show-depends "$m" 2>/dev/null || true)
	done
}

make_initramfs() {
	local kver=$1 out=$2 st path name
	st=$(mktemp -d "$tmp/initramfs.XXXXXX")
	mkdir -p "$st"/{bin,dev,proc,sys,newroot,modules}
	cp -L "$rootfs/bin/busybox" "$st/bin/busybox"
	: >"$st/modules.list"
	while read -r path; do
		name=$(basename "$path")
		case $name in
		*.ko.xz) xz -dc "$rootfs$path" >"$st/modules/${name%.xz}" ;;
		*.ko.zst) zstd -dcq "$rootfs$path" >"$st/modules/${name%.zst}" ;;
		*.ko.gz) gzip -dc "$rootfs$path" >"$st/modules/${name%.gz}" ;;
		*.ko) cp "$rootfs$path" "$st/modules/$name" ;;
		*) die "unexpected module file $path" ;;
		esac
		echo "${name%.ko*}.ko" >>"$st/modules.list"
	done < <(initramfs_modules "$kver")
	grep -q '^ext4.ko$' "$st/modules.list" || grep -q '^CONFIG_EXT4_FS=y' "$rootfs/boot/config-$kver" ||
		die "no ext4 module found for $kver"
	grep -q '^9p.ko$' "$st/modules.list" || grep -q '^CONFIG_9P_FS=y' "$rootfs/boot/config-$kver" ||
		die "no 9p module found for $kver"
	cat >"$st/init" <<'EOF'
#!/bin/busybox sh
# initramfs of tests/vm: load modules, mount root and the 9p shares, switch.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t devtmpfs devtmpfs /dev
mount -t proc proc /proc
mount -t sysfs sysfs /sys
fail() {
	echo "rg: initramfs: FATAL: $*"
	sleep 1
	poweroff -f
}
echo "rg: initramfs start uptime=$(cut -d' ' -f1 /proc/uptime)"
while read -r m; do
	insmod "/modules/$m" 2>/dev/null || echo "rg: initramfs: insmod $m failed"
done </modules.list
init=/out/.run-guest/guest-init.sh
for arg in $(cat /proc/cmdline); do
	case $arg in
	rg.init=*) init=${arg#rg.init=} ;;
	esac
done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
mount -t ext4 -o rw /dev/vda /newroot || fail "cannot mount /dev/vda"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro src /newroot/src || fail "cannot mount the src share"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /newroot/out || fail "cannot mount the out share"
[ -f "/newroot$init" ] || fail "no guest init $init"
mount --move /dev /newroot/dev
mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
exec switch_root /newroot /bin/bash "$init"
EOF
	chmod 755 "$st/init"
	(cd "$st" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -6 >"$out"
	rm -rf "$st"
}

t1=$SECONDS
for k in "${kernels[@]}"; do
	read -r kver _ <<<"$k"
	[[ -f $rootfs/boot/vmlinuz-$kver ]] || die "linux-image-$kver did not install /boot/vmlinuz-$kver"
	if extract_vmlinux "$rootfs/boot/vmlinuz-$kver" "$tmp/vmlinux-$kver"; then
		log "extracted vmlinux-$kver"
	else
		log "warning: cannot extract vmlinux from vmlinuz-$kver; using the bzImage"
		cp "$rootfs/boot/vmlinuz-$kver" "$tmp/bzImage-$kver"
	fi
	make_initramfs "$kver" "$tmp/initramfs-$kver.cpio.gz"
	log "initramfs-$kver.cpio.gz: $(gzip -dc "$tmp/initramfs-$kver.cpio.gz" | cpio -t --quiet | grep -c '\.ko$') modules"
done

# ---------------------------------------------------------------- root.ext4
used_kib=$(du -sk --apparent-size "$rootfs" | cut -f1)
size_mib=$(((used_kib * 11 / 10) / 1024 + 1536))
log "making root.ext4 (${size_mib} MiB, rootfs ${used_kib} KiB)"
mkfs.ext4 -q -F -L rpcrdma-root -i 8192 -d "$rootfs" "$tmp/root.ext4" "${size_mib}M" >&2
t_post=$((SECONDS - t1))

printf '%s\n' "${kernels[@]}" >"$tmp/kernels"
{
	echo "dist=$dist"
	echo "key=$key"
	echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "mmdebstrap_seconds=$t_mm"
	echo "kernels_and_ext4_seconds=$t_post"
	printf 'source=%s\n' "${sources[@]}"
	printf 'include=%s\n' "${includes[@]}"
} >"$tmp/info.new"
mv "$tmp/info.new" "$tmp/info"
mv -T "$tmp" "$final"
trap - EXIT
log "built $final in $((SECONDS - t0)) s (mmdebstrap ${t_mm} s, kernels+ext4 ${t_post} s)"
echo "$final"
