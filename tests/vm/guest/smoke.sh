#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Smoke test of the guest harness: rxe on a dummy netdev, an NFS server on a
# tmpfs export with an RDMA listener, NFSv3 and NFSv4.1 mounts over RDMA, and a
# data round trip through each.  Template for the real tests.
#   tests/vm/run-guest.sh --image DIR --kernel KVER --out OUT --script tests/vm/guest/smoke.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

t0=$SECONDS
echo "# uname -r: $(uname -r)"
rxe_up 192.168.77.1
check "rxe0 is an RDMA link on dummy0" bash -c 'rdma link show rxe0/1 | grep -q "netdev dummy0"'

mkdir -p /export
mount -t tmpfs -o size=256m tmpfs /export
nfs_server_start /export
check "nfsd listens for rdma on $NFS_RDMA_PORT" grep -qx "rdma $NFS_RDMA_PORT" /proc/fs/nfsd/portlist

for vers in 3 4.1; do
	t=$SECONDS
	nfs_mount "$vers" /mnt
	check "vers=$vers: mountstats shows proto=rdma" check_proto_rdma /mnt
	check "vers=$vers: 4 MiB O_DIRECT 4 KiB write and read back equal" data_roundtrip /mnt 4
	nfs_umount /mnt
	check "vers=$vers: unmounted" bash -c '! mountpoint -q /mnt'
	echo "# vers=$vers took $((SECONDS - t)) s"
done

nfs_server_stop
umount /export
rxe_down
echo "# smoke took $((SECONDS - t0)) s"
tap_done
