#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Extract, from a kernel source tarball or tree, only what building
# rpcrdma.ko needs: net/sunrpc/xprtrdma/, include/linux/sunrpc/svc_rdma.h
# and the top Makefile (for its version), with RHEL's Makefile.rhelver
# where there is one (for its release). DEST is replaced whole.
#
# usage: extract-kernel-source.sh SRC DEST
set -euo pipefail

die() {
	printf 'rpcrdma-inline: %s\n' "$@" >&2
	exit 1
}

[ $# -eq 2 ] || die "usage: $0 SRC DEST"
src=$1
dest=$2
members=(Makefile net/sunrpc/xprtrdma include/linux/sunrpc/svc_rdma.h)

tmp="$dest.tmp"
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

if [ -d "$src" ]; then
	for m in "${members[@]}"; do
		[ -e "$src/$m" ] || die "$src is not a kernel source tree: it has no $m."
		mkdir -p "$tmp/$(dirname "$m")"
		cp -a "$src/$m" "$tmp/$m"
	done
	[ ! -f "$src/Makefile.rhelver" ] || cp -a "$src/Makefile.rhelver" "$tmp/"
else
	# The tarball's top directory, e.g. linux-source-6.1/
	top=$(tar -tf "$src" 2>/dev/null | head -n 1 | cut -d/ -f1) || true
	[ -n "$top" ] || die "cannot read $src as a tar archive."
	# xz decompresses the tarball's blocks in parallel (xz >= 5.4)
	zargs=()
	case $src in
	*.xz) zargs=(--use-compress-program "xz -T0") ;;
	esac
	# (Makefile*: the top directory's Makefile and Makefile.rhelver alone)
	rest=("${members[@]:1}")
	tar "${zargs[@]}" -xf "$src" -C "$tmp" --strip-components=1 --wildcards \
		"$top/Makefile*" "${rest[@]/#/$top/}" ||
		die "$src does not hold ${members[*]} under $top/."
	[ -f "$tmp/Makefile" ] || die "$src does not hold Makefile under $top/."
fi

rm -rf "$dest"
mv "$tmp" "$dest"
trap - EXIT
