#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Load the rpcrdma module that is installed now (rpcrdma-inline's, from
# DKMS's updates/ directory) in place of the one loaded, when nothing uses
# it: an install script's last step. Never leaves the host without
# rpcrdma: the package's install rule (load-rpcrdma) loads the stock module
# when the kernel refuses ours, and should that rule be missing, this
# script runs the same helper from the tree.
#
# Exits 0 when ours is loaded, or with a note when rpcrdma is in use (ours
# is then loaded at the next reload or boot); 1 when the module loaded is
# not rpcrdma-inline's (the kernel refused ours: why is printed, from the
# load-failure record) or when no rpcrdma could be loaded at all.
#
# usage: reload-rpcrdma.sh VERSION
# env:   RPCRDMA_INLINE_SYSFS   instead of /sys (tests)
#        RPCRDMA_INLINE_RUN     instead of /run/rpcrdma-inline (tests)
set -euo pipefail

die() {
	printf 'rpcrdma-inline: %s\n' "$@" >&2
	exit 1
}

[ $# -eq 1 ] || die "usage: $0 VERSION"
here=$(cd "$(dirname "$0")" && pwd)
SYSFS=${RPCRDMA_INLINE_SYSFS:-/sys}
RUN=${RPCRDMA_INLINE_RUN:-/run/rpcrdma-inline}
if [ -e "$SYSFS"/module/rpcrdma ]; then
	if ! modprobe -r rpcrdma 2>/dev/null; then
		echo "rpcrdma-inline: installed; rpcrdma is in use (NFS/RDMA mounts or nfsd's rdma listener), so the stock module stays loaded until it is free: then run 'modprobe -r rpcrdma && modprobe rpcrdma', or reboot." >&2
		exit 0
	fi
fi
# The install rule falls back to the stock module by itself; without it
# (a package older than the rule, a hand-made install) the helper does
modprobe rpcrdma || [ -e "$SYSFS"/module/rpcrdma ] || "$here/load-rpcrdma" || true
[ -e "$SYSFS"/module/rpcrdma ] ||
	die "no rpcrdma module could be loaded, neither rpcrdma-inline's nor the stock one (above):" \
	    "NFS over RDMA is down. See 'dmesg | tail'; 'apt purge rpcrdma-inline-dkms' takes ours out."
if [ ! -f "$SYSFS"/module/rpcrdma/parameters/inline_size ]; then
	why=
	if [ -f "$RUN/load-failure" ]; then
		why=$(sed -n 's/^error=//p' "$RUN/load-failure")
	fi
	die "the kernel refused rpcrdma-inline's module${why:+ ($why)}; the stock rpcrdma is loaded instead," \
	    "and NFS over RDMA works as before. 'rpcrdma-inline status' and 'dmesg' say more;" \
	    "with Secure Boot or module.sig_enforce=1, the DKMS signing key must be trusted: see README.md, Install."
fi
echo "rpcrdma-inline $1 loaded: inline_size=$(cat "$SYSFS"/module/rpcrdma/parameters/inline_size)"
