#!/bin/bash
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): drop the RDMA listener,
# unload, dkms remove, and show the stock rpcrdma loads and mounts again.
# Uses $stock and $stock_srcversion from the install phase.
# shellcheck disable=SC2154 # set by phase-install.sh

nfs_server_stop
check "the RDMA listener is gone" bash -c "! grep -q rdma /proc/fs/nfsd/portlist 2>/dev/null"
check "our rpcrdma unloads" unload_rpcrdma
t=$SECONDS
check "dkms remove" dkms remove "rpcrdma-inline/$PKG_VERSION" --all
log "dkms remove took $((SECONDS - t)) s"
check "modinfo -n rpcrdma is the stock module again" test "$(modinfo -n rpcrdma)" = "$stock"
modprobe rpcrdma
check "the loaded rpcrdma is the stock one" bash -c "! test -e /sys/module/rpcrdma/parameters/inline_size"
if [ -n "$stock_srcversion" ]; then
	check "its srcversion is the stock module's" test "$(cat /sys/module/rpcrdma/srcversion)" = "$stock_srcversion"
fi
check_served stock /export
