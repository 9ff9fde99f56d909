#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
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
#
# Then the data path: a mount made with failslab off, then armed to fail
# ONE allocation (times=1) at an interval stepped over the rounds, while
# 4 KiB and 1 MiB O_DIRECT writes and reads run on a hard mount. The data
# must move and compare equal (through the mount and in the export), and
# once failslab is off our Send counts must move as the driver's do.

FS=/sys/kernel/debug/failslab
FAILSLAB_ROUNDS=${FAILSLAB_ROUNDS:-12}
FAILSLAB_TIMES=100000
FAILSLAB_DATA_ROUNDS=${FAILSLAB_DATA_ROUNDS:-8}
FS_KPROBE=/sys/kernel/tracing/events/kprobes/rpcrdma_failslab

fs_state() {
	echo "qp=$(rdma resource show qp 2>/dev/null | grep -c ' type RC ' || true) connections=$(grep -c . "$CONNS" || true)"
}

# The number of connections listed (a settled v3 mount: server and client)
fs_conns() { grep -c . "$CONNS" || true; }

# Sends counted by us (both sides, inline + byref) and by the driver
fs_sends() {
	# shellcheck disable=SC2046 # all_counts prints a list of fields
	set -- $(all_counts)
	echo "$(($2 + $3 + $4 + $5)) $((${12} + ${13}))"
}

# A return probe on should_failslab() with a stack trace when it fails,
# to tell where the one failure of a round landed (the trace buffer, not
# dmesg: a stack in dmesg reads as a kernel problem); best effort. It
# fires on every slab allocation: enabled only while failslab is armed
fs_probe_on() {
	local t=/sys/kernel/tracing
	# shellcheck disable=SC2016 # $retval is the kprobe syntax
	echo 'r:kprobes/rpcrdma_failslab should_failslab ret=$retval:s32' >>"$t/kprobe_events" 2>/dev/null &&
		echo 'stacktrace if ret != 0' >"$FS_KPROBE/trigger" 2>/dev/null &&
		echo 'ret != 0' >"$FS_KPROBE/filter" 2>/dev/null && return 0
	log "failslab: no return probe on should_failslab (where failures land is not shown)"
	return 1
}

fs_probe_off() {
	echo 0 >"$FS_KPROBE/enable" 2>/dev/null || true
	echo '!stacktrace if ret != 0' >"$FS_KPROBE/trigger" 2>/dev/null || true
	echo '-:kprobes/rpcrdma_failslab' >>/sys/kernel/tracing/kprobe_events 2>/dev/null || true
}

# The first rpcrdma function of each failing stack in the trace buffer
fs_landed() {
	awk '/<stack trace>/ { want = 1; next }
		want && $1 == "=>" && $2 ~ /^(svc_rdma|rpcrdma|frwr|xprt_rdma)/ { print $2; want = 0 }' \
		/sys/kernel/tracing/trace 2>/dev/null | sort -u | paste -sd,
}

# fs_same SRC FILE BYTES: FILE is BYTES long and equals SRC's first BYTES
fs_same() {
	[ "$(stat -c %s "$2" 2>/dev/null)" = "$3" ] && cmp -s -n "$3" "$1" "$2"
}

# One round: mount, arm failslab for one failure at interval $1, move and
# compare data, disarm. Sets FS_INJECTED (0 or 1), FS_LANDED (where) and
# FS_OK (1: the data moved and compared equal, the counts agree)
fs_data_round() {
	local interval=$1 src=/tmp/fsd.src back=/tmp/fsd.back a b ok=1 _
	FS_INJECTED=0 FS_LANDED=- FS_OK=0
	nfs_mount 3 /mnt || return 0
	[ "$(settle fs_conns 2 120 0.5)" = 2 ] || log "failslab: connections listed before the round: $(fs_conns)"
	head -c $((1 << 20)) /dev/urandom >"$src"
	: >/sys/kernel/tracing/trace 2>/dev/null || true
	echo 1 >"$FS_KPROBE/enable" 2>/dev/null || true
	echo "$interval" >"$FS/interval"
	echo 1 >"$FS/times"
	echo 100 >"$FS/probability"
	# A hard mount: a failure that drops the connection is retried on
	# the next one, so every write and read must complete. 64 Calls of
	# 4 KiB (inline behind their REG_MR), then one of 1 MiB: 256 pages,
	# more than svcrdma's rw context holds without a chained SG table
	timeout 900 dd if="$src" of=/mnt/fsd-4k bs=4k count=64 oflag=direct status=none || ok=0
	timeout 900 dd if="$src" of=/mnt/fsd-1m bs=1M oflag=direct status=none || ok=0
	timeout 900 dd if=/mnt/fsd-4k of="$back" bs=4k iflag=direct status=none || ok=0
	fs_same "$src" "$back" 262144 || ok=0
	timeout 900 dd if=/mnt/fsd-1m of="$back" bs=1M iflag=direct status=none || ok=0
	fs_same "$src" "$back" 1048576 || ok=0
	echo 0 >"$FS/probability"
	echo 0 >"$FS_KPROBE/enable" 2>/dev/null || true
	FS_INJECTED=$((1 - $(cat "$FS/times")))
	FS_LANDED=$(fs_landed)
	# failslab off: the data as it is on the server, and the Send counts
	fs_same "$src" /export/fsd-4k 262144 && fs_same "$src" /export/fsd-1m 1048576 || ok=0
	[ "$(settle fs_conns 2 120 0.5)" = 2 ] || log "failslab: connections listed after the round: $(fs_conns)"
	a=$(fs_sends)
	timeout 900 dd if=/mnt/fsd-4k of="$back" bs=4k iflag=direct status=none || ok=0
	fs_same "$src" "$back" 262144 || ok=0
	for _ in $(seq 30); do
		b=$(fs_sends)
		[ $((${b% *} - ${a% *})) = $((${b#* } - ${a#* })) ] && break
		sleep 0.5
	done
	if [ $((${b% *} - ${a% *})) != $((${b#* } - ${a#* })) ] || [ $((${b% *} - ${a% *})) -lt 128 ]; then
		log "failslab: interval $interval: ours moved $((${b% *} - ${a% *})), the driver $((${b#* } - ${a#* })) over 64 reads"
		ok=0
	fi
	conn_sums_agree server || ok=0
	conn_sums_agree client || ok=0
	rm -f /mnt/fsd-4k /mnt/fsd-1m "$src" "$back"
	timeout 120 umount /mnt || umount -l /mnt || ok=0
	conns_gone || ok=0
	FS_OK=$ok
}

fs_data_rounds() {
	local i interval fired=0 good=0 where="" start
	start=$(fs_state)
	echo 0 >"$FS/probability"
	# The driver's own Send counts (tests/modules/inline_limit.ko)
	check "failslab: insmod inline_limit" insmod "$GUEST_MODULES/inline_limit.ko"
	fs_probe_on || true
	for i in $(seq "$FAILSLAB_DATA_ROUNDS"); do
		interval=$((1 << (i - 1)))
		fs_data_round "$interval"
		log "failslab: data round $i, interval $interval: $FS_INJECTED failed (in ${FS_LANDED:--}), data and counts ok: $FS_OK"
		fired=$((fired + FS_INJECTED))
		good=$((good + FS_OK))
		if [ "$FS_INJECTED" = 1 ]; then where="$where ${FS_LANDED:--}"; fi
	done
	fs_probe_off
	check "failslab: rmmod inline_limit" rmmod inline_limit
	echo "$FAILSLAB_TIMES" >"$FS/times"
	echo 1 >"$FS/interval"
	log "failslab: $fired of $FAILSLAB_DATA_ROUNDS data rounds failed an allocation (in:${where:- -}); data equal in $good"
	check "failslab: every data round failed one allocation on a mounted transport ($fired of $FAILSLAB_DATA_ROUNDS)" \
		test "$fired" = "$FAILSLAB_DATA_ROUNDS"
	check "failslab: every data round moved its data and compared equal, counts with the driver's ($good of $FAILSLAB_DATA_ROUNDS)" \
		test "$good" = "$FAILSLAB_DATA_ROUNDS"
	check "failslab: QPs and connections back to the start after the data rounds" \
		test "$(settle fs_state "$start" 120 1)" = "$start"
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
	check "failslab: afterwards a mount negotiates: none (a new device: what the stock QP gets), then the full size" \
		test "$(conn_field client attempts)" = 2
	check "failslab: afterwards data compares equal" data_roundtrip /mnt 4
	nfs_umount /mnt
	conns_gone || true
	fs_data_rounds
fi
