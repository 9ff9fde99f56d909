#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): nothing installed,
# the kernel's own rpcrdma serving, so that the phases after it (faults)
# run with the stock module alone, where installing and reverting ours
# first would cost minutes (the debug kernel). Leaves rxe0 on dummy0 and
# the NFS server of phase-install.sh.

check "the rpcrdma modprobe finds is the kernel's own" \
	grep -q "/kernel/net/sunrpc/xprtrdma/rpcrdma.ko" <<<"$(modinfo -n rpcrdma)"
modprobe rpcrdma
check "the loaded rpcrdma is the stock one" bash -c "! test -e /sys/module/rpcrdma/parameters/inline_size"
serve_export
