#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Refuse a host whose RDMA stack is MLNX_OFED's or DOCA-OFED's. They
# replace ib_core and rdma_cm with their own, and a module built against
# the kernel's headers would not load there ("disagrees about version of
# symbol"). Run before anything is installed or built: first by the
# install script, and by the build before it reads the source.
#
# usage: ofed-check.sh KVER
set -euo pipefail

die() {
	printf 'rpcrdma-inline: %s\n' "$@" >&2
	exit 1
}

[ $# -eq 1 ] || die "usage: $0 KVER"
kver=$1
ofed=
for d in /usr/src/ofa_kernel*; do
	[ -e "$d" ] && ofed="its sources are in $d" && break
done
if [ -z "$ofed" ] && command -v modinfo >/dev/null; then
	ibcore=$(modinfo -k "$kver" -n ib_core 2>/dev/null || true)
	case $ibcore in
	'' | */kernel/drivers/infiniband/*) ;;
	*) ofed="ib_core of kernel $kver is $ibcore, not the kernel's own (kernel/drivers/infiniband)" ;;
	esac
fi
[ -z "$ofed" ] ||
	die "this host runs an OFED RDMA stack (MLNX_OFED or DOCA-OFED): $ofed." \
	    "rpcrdma-inline builds only against the RDMA stack of the distribution's kernel" \
	    "(ib_core, rdma_cm of the kernel's own modules), and a module built so would not load" \
	    "beside OFED's. Use OFED's own NFS over RDMA module (mlnx-nfsrdma) instead." \
	    "Nothing was built; the stock rpcrdma module stays in place."
