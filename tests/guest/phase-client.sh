#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): each side can be
# switched off on its own, for new connections. With GUEST_MEASURE=1, the
# full integrity workload's Sends on each side with the client's inline
# Calls off (server only), to compare with both sides on (integrity phase).
# (Which Calls go inline is checked per NFS version in phase-integrity.sh.)

param=/sys/module/rpcrdma/parameters
for mode in server-only client-only; do
	case $mode in
	server-only) echo Y >"$param/server_inline"; echo N >"$param/client_inline" ;;
	client-only) echo N >"$param/server_inline"; echo Y >"$param/client_inline" ;;
	esac
	nfs_mount 3 /mnt
	if [ $mode = server-only ] && [ "${GUEST_MEASURE:-0}" = 1 ]; then
		check "$mode: integrity workload compares equal" integrity_workload /mnt /export
	else
		check "$mode: integrity workload (2 MiB, 50 files) compares equal" integrity_workload /mnt /export 2 50
	fi
	log "$mode: Sends: server max=$(conn_field server max) inline=$(conn_field server inline) byref=$(conn_field server byref); client max=$(conn_field client max) inline=$(conn_field client inline) byref=$(conn_field client byref)"
	case $mode in
	server-only)
		check "$mode: the client asked for nothing and posted nothing inline" \
			test "$(conn_field client asked) $(conn_field client inline)" = "0 0"
		check "$mode: the server still posts inline" test "$(conn_field server inline)" -gt 0 ;;
	client-only)
		check "$mode: the server asked for nothing and posted nothing inline" \
			test "$(conn_field server asked) $(conn_field server inline)" = "0 0"
		check "$mode: the client still posts inline" test "$(conn_field client inline)" -gt 0 ;;
	esac
	nfs_umount /mnt
	conns_gone || true
done
echo Y >"$param/server_inline"
echo Y >"$param/client_inline"
