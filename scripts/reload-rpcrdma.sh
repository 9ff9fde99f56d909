#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Load the rpcrdma module that is installed now (rpcrdma-inline's, from
# DKMS's updates/ directory) in place of the one loaded, when nothing uses
# it: an install script's last step. Exits 0 with a note when rpcrdma is
# in use (it is then loaded at the next reload or boot), 1 when the module
# loaded is not rpcrdma-inline's.
#
# usage: reload-rpcrdma.sh VERSION
# env:   RPCRDMA_INLINE_SYSFS   instead of /sys (tests)
set -euo pipefail

die() {
	printf 'rpcrdma-inline: %s\n' "$@" >&2
	exit 1
}

[ $# -eq 1 ] || die "usage: $0 VERSION"
SYSFS=${RPCRDMA_INLINE_SYSFS:-/sys}
if [ -e "$SYSFS"/module/rpcrdma ]; then
	if ! modprobe -r rpcrdma 2>/dev/null; then
		echo "rpcrdma-inline: installed; rpcrdma is in use (NFS/RDMA mounts or nfsd's rdma listener), so the stock module stays loaded until it is free: then run 'modprobe -r rpcrdma && modprobe rpcrdma', or reboot." >&2
		exit 0
	fi
fi
modprobe rpcrdma
[ -f "$SYSFS"/module/rpcrdma/parameters/inline_size ] ||
	die "rpcrdma loaded, but it is not rpcrdma-inline: see 'modinfo -n rpcrdma'."
echo "rpcrdma-inline $1 loaded: inline_size=$(cat "$SYSFS"/module/rpcrdma/parameters/inline_size)"
