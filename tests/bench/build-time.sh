#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Benchmark: time to build our rpcrdma.ko for a kernel series vs the stock
# xprtrdma source built the same way (extracted from the same linux-source
# tarball, compiled out of tree against the same headers), each from
# scratch, in that kernel's own userland. Prints seconds; asserts nothing.
#
# usage: build-time.sh SERIES      (6.1, 6.12 or 7.3)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

series=${1:?usage: build-time.sh SERIES}
img=$(image_dir "$(image_dist "$series")")
kver=$(image_kver "$img" "$series")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export_tree "$work/src"

# shellcheck disable=SC2016 # expanded in the chroot
"$REPO/tests/vm/chroot-run.sh" --image "$img" --bind "$work/src:/src" \
	--env "K=$kver" --env "S=$series" -- bash -c '
	set -e
	tarball=/usr/src/linux-source-$S.tar.xz
	t0=$(date +%s.%N)
	make -s -C /src KVER="$K" >/tmp/ours.log 2>&1
	t1=$(date +%s.%N)
	/src/scripts/extract-kernel-source.sh "$tarball" /tmp/stock
	make -s -C "/lib/modules/$K/build" M=/tmp/stock/net/sunrpc/xprtrdma modules >/tmp/stock.log 2>&1
	t2=$(date +%s.%N)
	echo "kernel $K: rpcrdma-inline $(echo "$t1 - $t0" | bc) s, stock source $(echo "$t2 - $t1" | bc) s (each: extract + compile + link)"'
