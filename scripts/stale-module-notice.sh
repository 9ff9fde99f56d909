#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# After the package is installed or upgraded: if the rpcrdma loaded now
# is not the file that the next load would take for the running kernel
# (an older build of ours, or the stock module, kept because rpcrdma was
# in use), say so and what to run. Prints nothing otherwise, or when the
# running kernel is not installed here (a chroot).
#
# usage: stale-module-notice.sh
# env:   RPCRDMA_INLINE_SYSFS  instead of /sys (tests)
#        RPCRDMA_INLINE_KVER   instead of uname -r (tests)
set -euo pipefail

sys=${RPCRDMA_INLINE_SYSFS:-/sys}
kver=${RPCRDMA_INLINE_KVER:-$(uname -r)}
mod=$sys/module/rpcrdma
if [ ! -d "$mod" ] || [ ! -d "/lib/modules/$kver" ]; then
	exit 0
fi
file=$(modinfo -k "$kver" -F filename rpcrdma 2>/dev/null || true)
[ -n "$file" ] || exit 0
next_src=$(modinfo -k "$kver" -F srcversion rpcrdma 2>/dev/null || true)
next_ours=$(modinfo -k "$kver" -F rpcrdma_inline rpcrdma 2>/dev/null || true)
loaded_src=$(cat "$mod/srcversion" 2>/dev/null || true)
# Ours has the inline_size parameter; the stock module has not
if [ -e "$mod/parameters/inline_size" ]; then
	loaded="an older build of rpcrdma-inline"
else
	loaded="the stock module"
fi
if [ -n "$loaded_src" ] && [ "$loaded_src" = "$next_src" ]; then
	exit 0
fi
# Without srcversion, only a stock module against ours is known to differ
if [ -z "$loaded_src" ] && { [ -z "$next_ours" ] || [ -e "$mod/parameters/inline_size" ]; }; then
	exit 0
fi
if [ -n "$next_ours" ]; then
	next="rpcrdma-inline $next_ours ($file)"
else
	next="the stock module ($file)"
fi
cat >&2 <<EOF
rpcrdma-inline: the rpcrdma loaded now is $loaded; the next load takes
  $next.
  It stays in use until rpcrdma is loaded again: reboot, or, while no NFS
  over RDMA mount or nfsd RDMA listener uses it:
    modprobe -r rpcrdma && modprobe rpcrdma
  'rpcrdma-inline status' shows which rpcrdma is loaded.
EOF
