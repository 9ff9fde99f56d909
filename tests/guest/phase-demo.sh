#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
# Phase for `make demo` (sourced by suite.sh after the install phase): an
# NFSv3 mount over soft RoCE, a short workload, and what an administrator
# sees: the status command and the per-connection counters.

nfs_mount 3 /mnt
check "demo: mounted over RDMA" check_proto_rdma /mnt
head -c $((4 << 20)) /dev/urandom >/tmp/demo
dd if=/tmp/demo of=/mnt/demo bs=4k oflag=direct status=none
dd if=/mnt/demo of=/tmp/demo.back bs=4k iflag=direct status=none
for _ in $(seq 100); do head -c 1 /mnt/demo >/dev/null; done
check "demo: 4 MiB written and read back equal" cmp /tmp/demo /tmp/demo.back
echo
echo "==== $(uname -r): NFSv3 over soft RoCE (rxe0), 4 MiB of 4 KiB O_DIRECT I/O, 100 opens"
if [ -x /src/scripts/rpcrdma-inline ]; then
	echo "==== rpcrdma-inline status"
	/src/scripts/rpcrdma-inline status || true
fi
echo "==== $CONNS"
cat "$CONNS"
echo
nfs_umount /mnt
