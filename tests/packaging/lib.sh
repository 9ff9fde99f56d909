#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Helpers for the packaging tests (source this file; it sources ../lib.sh
# for REPO, export_tree and the TAP helpers).
#
#   pkg_version              PACKAGE_VERSION of dkms.conf
#   pkg_export TREE          export_tree, but skipping files deleted from
#                            the work tree and not yet from git
#   build_scripts TREE       the scripts/*.sh that 'make' (DKMS's MAKE line,
#                            default target) runs in TREE: those in its
#                            commands (make -n), and those they name, in turn
#   expected_dkms_files TREE the files, relative to /usr/src/NAME-VERSION,
#                            that the DKMS source tree must hold, sorted
#   expect_eq NAME WANT GOT  tap_ok when equal, else tap_fail showing both
#   expect_grep NAME RE TEXT tap_ok when a line of TEXT matches the ERE
#   diff_lists NAME WANT GOT tap_ok when the two sorted lists are equal
#   build_deb SRC            dpkg-buildpackage -us -uc -b in the export SRC;
#                            prints the .deb's path, or shows the log's end,
#                            says "not ok" and fails
#   fact FILE NAME           the last NAME=VALUE of $work/pkg/FILE (facts
#                            written by scripts run in chroots)
#   guest_tap LOG            relay a guest's TAP lines and comments as ours
#   in_chroot UPPER LOWERDIRS CMD...
#                            run CMD chrooted in the overlay LOWERDIRS + UPPER
#                            (kept), with /tmp/pkg = $work/pkg and /tmp/debs =
#                            $debs (the caller sets work and debs)
#   make_image LOWERDIRS DIR [FREE_MIB]
#                            a tests/vm image directory whose root.ext4 is the
#                            merged overlay LOWERDIRS with FREE_MIB (512) free;
#                            kernels and initramfs are those of $img
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# shellcheck disable=SC2034 # used by the tests that source this
NAME=rpcrdma-inline
# shellcheck disable=SC2034
BIN_PKG=rpcrdma-inline-dkms

pkg_version() {
	sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$REPO/dkms.conf"
}

pkg_export() {
	mkdir -p "$1"
	(cd "$REPO" && git ls-files -z -co --exclude-standard |
		while IFS= read -r -d '' f; do
			if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
		done | tar --null -T - -cf -) | tar -xf - -C "$1"
}

build_scripts() {
	local tree=$1 s n
	local -a todo seen=()
	# What make runs, and dkms.conf's PRE_BUILD and POST_BUILD
	mapfile -t todo < <({
		make -s -C "$tree" -n MAKE=true KVER=0.0.0-test KDIR=/nonexistent 2>/dev/null
		grep -E '^(PRE|POST)_BUILD=' "$tree/dkms.conf"
	} | grep -oE 'scripts/[A-Za-z0-9_.-]+\.sh' | sed 's,^scripts/,,' | sort -u)
	while [ ${#todo[@]} -gt 0 ]; do
		s=${todo[0]}
		todo=("${todo[@]:1}")
		if [[ " ${seen[*]} " == *" $s "* ]] || [ ! -f "$tree/scripts/$s" ]; then
			continue
		fi
		seen+=("$s")
		while read -r n; do
			if [ -f "$tree/scripts/$n" ]; then
				todo+=("$n")
			fi
		done < <(grep -oE '[A-Za-z0-9_.-]+\.sh' "$tree/scripts/$s" | sort -u)
	done
	printf '%s\n' "${seen[@]}" | LC_ALL=C sort
}

expected_dkms_files() {
	local tree=$1
	{
		printf '%s\n' dkms.conf Makefile Kbuild
		(cd "$tree" && find src include -type f ! -name '*.o' ! -name '*.ko' \
			! -name '*.mod' ! -name '*.mod.c' ! -name '.*.cmd' ! -name '*.a' \
			! -name '*.orig' ! -name '*.rej')
		build_scripts "$tree" | sed 's,^,scripts/,'
	} | LC_ALL=C sort
}

expect_eq() {
	if [ "$2" = "$3" ]; then
		tap_ok "$1"
	else
		tap_fail "$1"
		printf '#   want: %s\n#   got:  %s\n' "$2" "$3"
	fi
}

expect_grep() {
	if grep -qE -- "$2" <<<"$3"; then
		tap_ok "$1"
	else
		tap_fail "$1"
		printf '#   no line matches: %s\n' "$2"
		printf '%s\n' "$3" | head -n 20 | sed 's/^/#   | /'
	fi
}

diff_lists() {
	local out
	if out=$(diff <(printf '%s\n' "$2") <(printf '%s\n' "$3")); then
		tap_ok "$1"
	else
		tap_fail "$1"
		printf '%s\n' "$out" | head -n 30 | sed 's/^/#   /'
	fi
}

# The overlay mounts live in private mount namespaces (unshare) and vanish
# with them; nothing stays mounted under $work.
# shellcheck disable=SC2154 # work, debs and img are the caller's
in_chroot() {
	local upper=$1 lower=$2
	shift 2
	mkdir -p "$upper" "$upper.wd"
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare --mount --propagation private -- bash -euc '
		root=$1 upper=$2 lower=$3 pkg=$4 debs=$5
		shift 5
		mkdir -p "$root"
		mount -t overlay overlay -o "lowerdir=$lower,upperdir=$upper,workdir=$upper.wd" "$root"
		mount -t proc proc "$root/proc"
		mount --rbind /sys "$root/sys"
		mount --rbind /dev "$root/dev"
		mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
		mkdir -p "$root/tmp/pkg" "$root/tmp/debs"
		mount --bind "$pkg" "$root/tmp/pkg"
		mount --bind -o ro "$debs" "$root/tmp/debs"
		chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
			DEBIAN_FRONTEND=noninteractive \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
	' _ "$work/root" "$upper" "$lower" "$work/pkg" "$debs" "$@"
}

# shellcheck disable=SC2154
make_image() {
	local lower=$1 dir=$2 free=${3:-512} f
	mkdir -p "$dir"
	for f in "$img"/vmlinux-* "$img"/initramfs-*.cpio.gz; do
		ln -sf "$f" "$dir/"
	done
	cp "$img/kernels" "$img/info" "$dir/"
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare --mount --propagation private -- bash -euc '
		lower=$1 root=$2 ext4=$3 free=$4
		mkdir -p "$root"
		mount -t overlay overlay -o "ro,lowerdir=$lower" "$root"
		used=$(du -sxm "$root" | cut -f1)
		mkfs.ext4 -q -F -L rpcrdma-root -i 8192 -d "$root" "$ext4" "$((used + free))M" >/dev/null
	' _ "$lower" "$work/root" "$dir/root.ext4" "$free"
}

build_deb() {
	local src=$1
	if ! (cd "$src" && dpkg-buildpackage -us -uc -b) >"$src.build.log" 2>&1; then
		tail -n 30 "$src.build.log" | sed 's/^/#   /'
		tap_fail "dpkg-buildpackage -us -uc -b"
		return 1
	fi
	echo "$(dirname "$src")/$(cd "$(dirname "$src")" && echo "${BIN_PKG}"_*_all.deb)"
}

# shellcheck disable=SC2154
fact() {
	awk -v k="$2=" 'index($0, k) == 1 { v = substr($0, length(k) + 1) } END { print v }' \
		"$work/pkg/$1" 2>/dev/null
}

guest_tap() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*) tap_ok "guest: ${line#* - }" ;;
		"not ok "*) tap_fail "guest: ${line#* - }" ;;
		"# "*) echo "$line" ;;
		esac
	done <"$1"
}
