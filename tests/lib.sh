#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Helpers for the host-side tests (source this file).
#
#   export_tree DEST        copy the tracked and untracked-but-not-ignored
#                           files of the work tree to DEST, as a package would
#   image_dir DIST          the cached guest image of DIST (built on first use)
#   series_image SERIES     the image that boots SERIES (6.1, 6.12, 6.12+deb13,
#                           7.2, 7.3, or 6.12-debug: tests/vm/build-debug-kernel.sh);
#                           a point release X.Y.Z (6.12.113, 6.12.N+deb13) gets
#                           an image of its own that carries that kernel alone
#   image_kver DIR SERIES   the kernel version of SERIES in DIR
#   image_dist SERIES       the Debian release that carries SERIES: 6.12 is
#                           Debian 12's (6.12.N+deb12), 6.12+deb13 Debian 13's
#   tap_ok / tap_fail NAME  TAP lines, counted by tap_end
#   expect NAME CMD...      tap_ok when CMD succeeds, else tap_fail
#   tap_end                 fail (return 1) if any check failed
#   guest_artifacts IMG KVER SRC LOGDIR
#                           the test modules and our DKMS tarball for KVER

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export REPO
TAP_N=0
TAP_FAILED=0

export_tree() {
	local dest=$1
	mkdir -p "$dest"
	(cd "$REPO" && git ls-files -z -co --exclude-standard |
		while IFS= read -r -d '' f; do
			[ -e "$f" ] && printf '%s\0' "$f"
		done | tar --null -T - -cf -) | tar -xf - -C "$dest"
}

image_dist() {
	case $1 in
	*+deb13 | 7.*) echo trixie ;;
	6.1 | 6.12 | 6.1.* | 6.12.*) echo bookworm ;;
	*) echo "no image carries kernel series $1" >&2; return 1 ;;
	esac
}

# One lookup at a time (tests/run.sh starts several guests, each asking for
# its image): concurrent build-image.sh runs rewrite the same apt
# sources.list and pkgcache.bin, and apt-cache reading one being rewritten
# finds no linux-source at all.
image_dir() {
	local cache=${RPCRDMA_INLINE_CACHE:-/var/cache/rpcrdma-inline}
	mkdir -p "$cache"
	flock "$cache/.image-lookup.lock" "$REPO/tests/vm/build-image.sh" "$1" | tail -n 1
}

series_image() {
	case $1 in
	# RPCRDMA_INLINE_DEBUG_IMAGE: a debug image built before (another
	# recipe's key), while this recipe's builds
	*-debug) if [ -n "${RPCRDMA_INLINE_DEBUG_IMAGE:-}" ]; then
		echo "$RPCRDMA_INLINE_DEBUG_IMAGE"
	else
		"$REPO/tests/vm/build-debug-kernel.sh" | tail -n 1
	fi ;;
	# A point release: that kernel alone (tests/vm/build-image.sh)
	[0-9]*.[0-9]*.[0-9]*) RPCRDMA_INLINE_KSERIES="$(echo "$1" | cut -d. -f1-2)=${1%+deb*}" \
		image_dir "$(image_dist "$1")" ;;
	*) image_dir "$(image_dist "$1")" ;;
	esac
}

image_kver() {
	local kver
	# 6.12+deb13: the kernel of series 6.12 in that release's image
	# (6.12.113: the only kernel of series 6.12 in that point release's image)
	kver=$(awk -v s="$(echo "${2%+deb*}" | cut -d. -f1-2)" '$3 == s { print $1 }' "$1/kernels")
	[ -n "$kver" ] || { echo "no kernel of series $2 in $1" >&2; return 1; }
	echo "$kver"
}

tap_ok() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1"
}

tap_fail() {
	TAP_N=$((TAP_N + 1))
	TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N - $1"
}

expect() {
	local name=$1
	shift
	if "$@"; then tap_ok "$name"; else tap_fail "$name"; fi
}

tap_end() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
}

# guest_artifacts IMG KVER SRC LOGDIR: in the userland of image IMG, build
# the test-only modules (tests/modules) for KVER into SRC/build/guest-modules,
# and (unless RPCRDMA_INLINE_GUEST_BUILD=guest: the guest builds it) our
# module with DKMS, exported as a binaries-only DKMS tarball into
# SRC/build/dkms, as for a prebuilt package (under TCG a DKMS build inside
# the guest takes 10 minutes and more). Logs: LOGDIR/modules.log and
# LOGDIR/dkms-build.log.
guest_artifacts() {
	local img=$1 kver=$2 src=$3 logs=$4 version t0
	"$REPO/tests/vm/chroot-run.sh" --image "$img" --bind "$src:/src" -- \
		/src/tests/modules/build.sh "$kver" "/src/build/guest-modules/$kver" \
		>"$logs/modules.log" 2>&1 || {
		cat "$logs/modules.log"
		echo "building the test modules for $kver failed"
		return 1
	}
	[ "${RPCRDMA_INLINE_GUEST_BUILD:-chroot}" = chroot ] || return 0
	version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$REPO/dkms.conf")
	t0=$SECONDS
	# shellcheck disable=SC2016 # expanded in the chroot
	"$REPO/tests/vm/chroot-run.sh" --image "$img" --bind "$src:/src" \
		--env "V=$version" --env "K=$kver" -- bash -c '
		set -e
		cp -a /src "/usr/src/rpcrdma-inline-$V"
		rm -rf "/usr/src/rpcrdma-inline-$V/build"
		dkms add "rpcrdma-inline/$V"
		dkms build "rpcrdma-inline/$V" -k "$K"
		dkms mktarball "rpcrdma-inline/$V" -k "$K" --binaries-only
		mkdir -p /src/build/dkms
		cp /var/lib/dkms/rpcrdma-inline/"$V"/tarball/*.tar.gz /src/build/dkms/' \
		>"$logs/dkms-build.log" 2>&1 || {
		cat "$logs/dkms-build.log"
		echo "the DKMS build for $kver in a chroot of its guest image failed"
		return 1
	}
	echo "# DKMS build for $kver in a chroot of the guest image took $((SECONDS - t0)) s"
	# DKMS's own output says what was built (POST_BUILD): Debian 12's
	# dkms 3.0 shows the script's output; Debian 13's runs it quietly
	# ("Running the post_build script... done."), and there modinfo, the
	# load message and status say it (phase-install)
	if ! grep -q '^Running the post_build script' "$logs/dkms-build.log"; then
		grep -E '^rpcrdma-inline: (warning: )?built for ' "$logs/dkms-build.log" | sed 's/^/# /' | grep . || {
			echo "dkms build did not show what it built (scripts/build-report.sh, POST_BUILD)"
			return 1
		}
	fi
}
