#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Build the test-only modules for kernel KVER into OUT, inside that
# kernel's userland (run it through tests/vm/chroot-run.sh): inline_limit.ko
# and small_reply_chunk.ko from this directory, and siw.ko (soft iWARP,
# not built by Debian) from drivers/infiniband/sw/siw of the kernel's own
# linux-source tarball.
#
# usage: build.sh KVER OUT
set -euo pipefail

kver=${1:?usage: build.sh KVER OUT}
out=${2:?usage: build.sh KVER OUT}
here=$(cd "$(dirname "$0")" && pwd)
kdir="/lib/modules/$kver/build"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

cp "$here/inline_limit.c" "$here/small_reply_chunk.c" "$here/Kbuild" "$work/"
make -s -C "$kdir" M="$work" modules
cp "$work/inline_limit.ko" "$work/small_reply_chunk.ko" "$out/"

series=$(printf '%s\n' "$kver" | cut -d. -f1-2 | sed 's/[^0-9.].*//')
tarball=$(ls "/usr/src/linux-source-$series.tar."*)
mkdir -p "$work/siw"
tar -xf "$tarball" -C "$work/siw" --strip-components=5 --wildcards \
	'*/drivers/infiniband/sw/siw/*'
make -s -C "$kdir" M="$work/siw" CONFIG_RDMA_SIW=m modules
cp "$work/siw/siw.ko" "$out/"
