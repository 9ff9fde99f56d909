#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# See rpcrdma-inline work on any Linux machine, with no RDMA hardware and
# without loading anything into this machine's kernel: boot Debian 12's
# kernel in QEMU, install the module there with DKMS, put soft RoCE on a
# dummy netdev, mount an NFS export over RDMA, run a short workload, and
# print the status command's output and the per-connection counters.
#
# usage: sudo scripts/demo.sh [SERIES]     (6.1 by default; 6.12 or 7.3)
# The first run builds a guest image from Debian's packages (a few minutes).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
series=${1:-6.1}
[ "$(id -u)" -eq 0 ] || {
	echo "rpcrdma-inline demo: run me as root (it installs QEMU and mmdebstrap with apt, and builds a guest image): sudo $0" >&2
	exit 1
}
"$top/tests/install-host-deps.sh"
rc=0
GUEST_PHASES="install demo" "$top/tests/test-guest.sh" "$series" >/tmp/rpcrdma-inline-demo.log 2>&1 || rc=$?
sed -n '/^====/,/^$/p' /tmp/rpcrdma-inline-demo.log
grep -E '^(not )?ok ' /tmp/rpcrdma-inline-demo.log || true
[ "$rc" -eq 0 ] || echo "the demo failed ($rc): see /tmp/rpcrdma-inline-demo.log" >&2
exit "$rc"
