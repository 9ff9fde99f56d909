#!/bin/bash
# Take rpcrdma-inline out: remove it from DKMS for every kernel and, if
# nothing uses rpcrdma, load the stock module in its place.
#
# usage: sudo scripts/uninstall.sh
set -euo pipefail

die() {
	printf 'rpcrdma-inline: %s\n' "$@" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "run me as root: sudo $0"
top=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")

if dkms status "rpcrdma-inline/$version" 2>/dev/null | grep -q .; then
	dkms remove "rpcrdma-inline/$version" --all
fi
rm -rf "/usr/src/rpcrdma-inline-$version"

if [ -f /sys/module/rpcrdma/parameters/inline_size ]; then
	modprobe -r rpcrdma 2>/dev/null ||
		die "removed; our rpcrdma stays loaded while it is in use (NFS/RDMA mounts or nfsd's rdma listener). Unmount and stop the listener, then: modprobe -r rpcrdma && modprobe rpcrdma"
	modprobe rpcrdma
fi
echo "rpcrdma-inline removed; rpcrdma is the stock module: $(modinfo -n rpcrdma)"
