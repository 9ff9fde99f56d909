#!/bin/bash
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh; debug kernel only, as
# it needs CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_STACKTRACE_FILTER):
# slab allocations fail at random wherever rpcrdma's code is on the stack,
# so in our own allocations (the per-device entry, made when a device is
# added) and in the QP creation path (rdma_create_qp() under
# rpcrdma_wqe_inline_create_qp()), as in the rest of xprtrdma and svcrdma,
# while mounts are tried and rxe0 is deleted and added again.
# Failures are expected; afterwards everything must work as before, with
# nothing left over, and no kernel report (run-guest.sh fails the run on a
# WARNING, BUG, KASAN or lockdep line; phase-kmemleak.sh looks for leaks).

FS=/sys/kernel/debug/failslab
FAILSLAB_ROUNDS=${FAILSLAB_ROUNDS:-12}
FAILSLAB_TIMES=100000

fs_state() {
	echo "qp=$(rdma resource show qp 2>/dev/null | grep -c ' type RC ' || true) connections=$(grep -c . "$CONNS" || true)"
}

if [ ! -d "$FS" ] || [ ! -e "$FS/require-start" ]; then
	check "failslab with a stack-trace filter is in this kernel" false
else
	fs_start=$(fs_state)
	# rpcrdma's code: from its .text to the end of the module's memory
	# (/proc/modules: name size refs users state address [taint flags])
	read -r _ fs_size _ _ _ fs_base _ < <(grep '^rpcrdma ' /proc/modules)
	fs_text=$(cat /sys/module/rpcrdma/sections/.text)
	# debugfs takes hex; bash's arithmetic wraps, printf shows it unsigned
	fs_end=$(printf '0x%x' "$((fs_base + fs_size))")
	echo "$fs_text" >"$FS/require-start"
	echo "$fs_end" >"$FS/require-end"
	echo 32 >"$FS/stacktrace-depth"
	echo N >"$FS/ignore-gfp-wait"
	echo 0 >"$FS/verbose"
	echo 0 >"$FS/space"
	echo 1 >"$FS/interval"
	echo "$FAILSLAB_TIMES" >"$FS/times"
	log "failslab: on, the slab allocations made with rpcrdma ($fs_text..$fs_end) on the stack"
	fs_mounted=0 fs_moved=0
	for i in $(seq "$FAILSLAB_ROUNDS"); do
		# The first third of the rounds fail 1%, the second 5%, the
		# last 25%. A mount makes hundreds of such allocations: in
		# the two debug runs whose logs are kept none came up, even
		# at 1% (36 failures in 12 rounds), so these rounds exercise
		# the failure paths of connection setup, QP creation and
		# device add, not data moving under failures
		if [ $((i * 3)) -le "$FAILSLAB_ROUNDS" ]; then
			echo 1 >"$FS/probability"
		elif [ $((i * 3)) -le $((FAILSLAB_ROUNDS * 2)) ]; then
			echo 5 >"$FS/probability"
		else
			echo 25 >"$FS/probability"
		fi
		if timeout 60 mount -t nfs -o "rdma,port=$NFS_RDMA_PORT,vers=3,soft,timeo=50,retrans=1,retry=0" \
			"$NFS_SERVER:$NFS_EXPORT" /mnt 2>/dev/null; then
			fs_mounted=$((fs_mounted + 1))
			if timeout 120 dd if=/dev/urandom of=/mnt/failslab bs=4k count=64 oflag=direct status=none 2>/dev/null; then
				fs_moved=$((fs_moved + 1))
			fi
			timeout 60 umount -f /mnt 2>/dev/null || umount -l /mnt 2>/dev/null || true
		fi
		if [ $((i % 4)) = 0 ]; then
			rdma link delete rxe0
			rdma link add rxe0 type rxe netdev dummy0
		fi
	done
	echo 0 >"$FS/probability"
	fs_injected=$((FAILSLAB_TIMES - $(cat "$FS/times")))
	log "failslab: off after $FAILSLAB_ROUNDS rounds (1%, 5%, then 25%): $fs_injected allocations failed; $fs_mounted mounts made, $fs_moved carried 256 KiB"
	check "failslab: allocations under rpcrdma did fail ($fs_injected)" test "$fs_injected" -gt 0
	# Only now: let whatever the failures left half-done time out
	fs_now=$(settle fs_state "$fs_start" 120 1)
	log "failslab: after: $fs_now (start: $fs_start)"
	check "failslab: QPs and connections back to the start ($fs_now)" test "$fs_now" = "$fs_start"
	# Our device entry is made in the ib_client's add, which failslab
	# may have failed (rpcrdma then only forgets the device's grant):
	# one more re-add without failslab must list it
	log "failslab: rxe0 listed in devices right after: $(grep -c '^rxe0 ' /sys/kernel/debug/rpcrdma_inline/devices || true)"
	rdma link delete rxe0
	rdma link add rxe0 type rxe netdev dummy0
	check "failslab: rxe0 is listed in devices again, once re-added" grep -q '^rxe0 ' /sys/kernel/debug/rpcrdma_inline/devices
	nfs_mount 3 /mnt
	check "failslab: afterwards a mount negotiates at the first attempt" \
		test "$(conn_field client attempts)" = 1
	check "failslab: afterwards data compares equal" data_roundtrip /mnt 4
	nfs_umount /mnt
	conns_gone || true
fi
