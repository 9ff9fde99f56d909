#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): drop the RDMA listener,
# unload, dkms remove, and show the stock rpcrdma loads and mounts again.
# Uses $stock and $stock_srcversion from the install phase.
# shellcheck disable=SC2154 # set by phase-install.sh
#
# First the NFSv4.1 backchannel (hook 08-svc-backchannel): its rdma
# rpc_xprt, there while a v4.1 mount is, goes with the umount and nfsd's
# stop, rpcrdma then unloads, and every rpc_xprt file left reads cleanly.
# The stock module keeps that rpc_xprt for good and unloads under it
# (phase-faults.sh logs it).

if ! grep -q rdma /proc/fs/nfsd/portlist 2>/dev/null; then
	nfs_server_start /export
fi
rv_before=$(rdma_rpc_xprts)
check "an NFSv4.1 mount over RDMA" nfs_mount 4.1 /mnt
rv_mounted=0
for _ in $(seq 40); do
	stat /mnt/. >/dev/null 2>&1 || true
	rv_mounted=$(rdma_rpc_xprts)
	[ "$rv_mounted" -ge $((rv_before + 2)) ] && break
	sleep 0.5
done
log "revert: rdma rpc_xprts: $rv_before before the v4.1 mount, $rv_mounted with it: $(rdma_rpc_xprt_list)"
check "an NFSv4.1 mount adds its client's and its backchannel's rdma rpc_xprts ($rv_before, then $rv_mounted)" \
	test "$rv_mounted" -ge $((rv_before + 2))
if mountpoint -q /mnt; then umount /mnt; fi
nfs_server_stop
rv_left=$(settle rdma_rpc_xprts 0 60 0.5)
log "revert: rdma rpc_xprts after the umount and nfsd stopped: $rv_left: $(rdma_rpc_xprt_list)"
check "no rdma rpc_xprt stays after the v4.1 umount and nfsd's stop ($rv_left)" test "$rv_left" = 0
check "the RDMA listener is gone" bash -c "! grep -q rdma /proc/fs/nfsd/portlist 2>/dev/null"
check "our rpcrdma unloads" unload_rpcrdma
rv_rc=0
/src/scripts/rpcrdma-inline -p status >/dev/null 2>&1 || rv_rc=$?
check "rpcrdma-inline status exits 6 with no rpcrdma loaded ($rv_rc)" test "$rv_rc" = 6
if [ "$rv_left" = 0 ]; then
	rv_bad0=$(kernel_problems)
	rv_files=$(rpc_xprt_read_all)
	rv_bad=$(kernel_problems)
	log "revert: after the unload, $rv_files rpc_xprt files read; kernel problem lines $rv_bad0, then $rv_bad"
	check "after the unload a read of every rpc_xprt file ($rv_files) logs no Oops or WARN" \
		test "$rv_bad" = "$rv_bad0"
else
	# reading one would fault in the unloaded module
	log "revert: rpc_xprt files not read: $rv_left rdma rpc_xprts outlive rpcrdma"
	check "after the unload every rpc_xprt file reads cleanly (not read: $rv_left rdma rpc_xprts stayed)" false
fi
t=$SECONDS
check "dkms remove" dkms remove "rpcrdma-inline/$PKG_VERSION" --all
log "dkms remove took $((SECONDS - t)) s"
check "modinfo -n rpcrdma is the stock module again" test "$(modinfo -n rpcrdma)" = "$stock"
modprobe rpcrdma
check "the loaded rpcrdma is the stock one" bash -c "! test -e /sys/module/rpcrdma/parameters/inline_size"
rv_rc=0
/src/scripts/rpcrdma-inline -p status >/dev/null 2>&1 || rv_rc=$?
check "rpcrdma-inline status exits 5 with the stock module loaded ($rv_rc)" test "$rv_rc" = 5
if [ -n "$stock_srcversion" ]; then
	check "its srcversion is the stock module's" test "$(cat /sys/module/rpcrdma/srcversion)" = "$stock_srcversion"
fi
check_served stock /export
