#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): faults, churn and many
# connections, with whichever rpcrdma is loaded, so that the same phase
# run after "revert" puts the stock module's results beside ours (deep
# tier: tests/run.sh deep).
#
#  1. rxe0 deleted and added again while fio writes and verifies
#     (crc32c) on an NFSv3 and an NFSv4.1 mount: the hard mounts recover,
#     fio ends with no verify error, nothing stale stays listed
#  2. churn: FAULTS_CYCLES mount/unmount cycles, FAULTS_RELOADS unloads
#     and reloads of rpcrdma, nfsd restarted twice under fio; RC QPs,
#     CM IDs and our debugfs lists come back to where they started, and
#     no kmalloc cache grows by one object per cycle or reload (the
#     reloads' allocations are also traced and their growth logged)
#  3. four mounts made at once (v3, v4.0, v4.1, v4.2) with nconnect=16 on
#     rxe0 limited to 101 bytes of inline data, fio with 8 jobs: every
#     byte verified, and the QP creations those connections took
#
# Each scenario logs what it did ("# faults ..."). With the stock module
# the outcomes are logged beside ours, not counted: ours must do at least
# as well, and a failure of the stock module is the kernel's. Needs rxe0 on dummy0
# and the NFS server of phase-install.sh (started again if it is down).

FAULTS_CYCLES=${FAULTS_CYCLES:-100}
# The file size of the removal's and the restarts' fio: a debug kernel
# under TCG moves tens to hundreds of KiB/s, with other guests beside it
FAULTS_FIO_MIB=${FAULTS_FIO_MIB:-8}
FAULTS_RELOADS=${FAULTS_RELOADS:-20}
if ours_loaded; then f_mod=ours; else f_mod=stock; fi
f_tag="faults ($f_mod)"

rc_qps() {
	rdma resource show qp 2>/dev/null | grep -c ' type RC ' || true
}

cm_ids() {
	rdma resource show cm_id 2>/dev/null | grep -c . || true
}

# Lines of one of our debugfs files, or "-" with the stock module
our_lines() {
	if [ "$f_mod" = ours ]; then grep -c . "/sys/kernel/debug/rpcrdma_inline/$1" || true; else echo -; fi
}

# The counts that must come back after each scenario
f_state() {
	echo "qp=$(rc_qps) cm_id=$(cm_ids) connections=$(our_lines connections) devices=$(our_lines devices)"
}

# Slab counts: no kmalloc cache may hold LIMIT objects more than in BEFORE
# beyond one slab's worth (a leak of one object per cycle shows where a
# slab holds fewer objects than the cycles). Frees that wait for an RCU
# grace period come late: read again, up to 10 times. Under KASAN its
# quarantine holds freed objects, so there kmemleak looks for leaks.
if grep -q '^CONFIG_KASAN=y' "/boot/config-$(uname -r)" 2>/dev/null; then
	f_slab=0
else
	f_slab=1
fi
f_slab_check() {
	local what=$1 before=$2 limit=$3 cache grew per _
	if [ "$f_slab" = 0 ]; then
		log "$f_tag: $what: slab counts not compared under KASAN (kmemleak looks for leaks)"
		return 0
	fi
	for _ in $(seq 10); do
		read -r cache grew per <<<"$(kmalloc_growth "$before" "$(kmalloc_objects)")"
		[ $((grew - per)) -lt "$limit" ] && break
		sleep 1
	done
	log "$f_tag: $what: slab: the kmalloc cache that grew most: $cache, +$grew objects ($per per slab)"
	f_check "$f_tag: $what: no kmalloc cache grew by $limit objects beyond one slab ($cache +$grew, $per per slab)" \
		test $((grew - per)) -lt "$limit"
}

# Allocations that outlive the reloads, of any size, logged beside the
# slab check: kmem tracing in an instance of its own, read as it comes
# (trace_pipe), each allocation paired with its free by address, and the
# objects each call site holds counted at a mark after half the reloads
# and at the end, both with the module loaded, so that what one loaded
# module holds cancels out. Not asserted: xas_alloc (xarray nodes) grew by
# 49 to 107 over 10 reloads on 6.1, 6.12 and 7.3, as much with the stock
# module as with ours; the stock pass logs the same line to compare.
F_KMEM=/sys/kernel/tracing/instances/faults-kmem
f_kmem_events=(kmalloc kmalloc_node kmem_cache_alloc kmem_cache_alloc_node kfree kmem_cache_free)
f_kmem_enable() { # 0|1
	local e
	for e in "${f_kmem_events[@]}"; do
		if [ -e "$F_KMEM/events/kmem/$e/enable" ]; then
			echo "$1" >"$F_KMEM/events/kmem/$e/enable"
		fi
	done
}

f_kmem_start() {
	rmdir "$F_KMEM" 2>/dev/null || true
	mkdir "$F_KMEM"
	echo 16384 >"$F_KMEM/buffer_size_kb"
	f_kmem_enable 1
	cat "$F_KMEM/trace_pipe" >/tmp/faults-kmem.trace &
	f_kmem_reader=$!
}

f_kmem_mark() {
	echo faults-kmem-mark >"$F_KMEM/trace_marker"
}

# f_kmem_growth TRACE: "N CALL-SITE" for each call site, N the objects it
# held at the end (allocated and not freed) less those it held at the
# mark, most first
f_kmem_growth() {
	awk '/faults-kmem-mark/ { for (p in live) at_mark[live[p]]++; next }
		/ (kmalloc|kmalloc_node|kmem_cache_alloc|kmem_cache_alloc_node): / {
			cs = ""; p = ""
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^call_site=/) cs = substr($i, 11)
				if ($i ~ /^ptr=/) p = substr($i, 5)
			}
			sub(/\/0x[0-9a-f]+$/, "", cs)
			live[p] = cs
			next
		}
		/ (kfree|kmem_cache_free): / {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^ptr=/) delete live[substr($i, 5)]
		}
		END {
			for (p in live) n[live[p]]++
			for (c in n) print n[c] - at_mark[c], c
		}' "$1" | sort -rn
}

f_kmem_report() { # WHAT RELOADS-AFTER-THE-MARK
	local what=$1 after=$2 allocs lost
	# frees that wait for an RCU grace period
	sleep 3
	f_kmem_enable 0
	sleep 1
	kill "$f_kmem_reader" 2>/dev/null || true
	wait "$f_kmem_reader" 2>/dev/null || true
	allocs=$(grep -cE ' (kmalloc|kmalloc_node|kmem_cache_alloc|kmem_cache_alloc_node): ' /tmp/faults-kmem.trace || true)
	lost=$(awk '/^overrun:/ { s += $2 } END { print s + 0 }' "$F_KMEM"/per_cpu/cpu*/stats)
	log "$f_tag: $what: $allocs allocations traced, $lost events lost; objects held by call site, growth over the last $after reloads, most first: $(f_kmem_growth /tmp/faults-kmem.trace | head -n 5 | tr '\n' ';')"
	rm -f /tmp/faults-kmem.trace
	rmdir "$F_KMEM" 2>/dev/null || true
}

# fio_verify NAME FIO-ARGS...: write and verify with crc32c; the output
# goes to /tmp/fio-NAME.out. Fails on a non-zero exit or a job error.
fio_verify() {
	local name=$1
	shift
	fio --name="$name" --ioengine=psync --direct=1 --bs=4k --rw=randwrite \
		--verify=crc32c --do_verify=1 --verify_fatal=1 \
		--group_reporting "$@" >"/tmp/fio-$name.out" 2>&1
}

# f_wait PID NAME: wait for fio NAME; if it has not ended after
# FAULTS_FIO_LIMIT seconds (a hard mount that never recovers), log where
# the RPCs stand and where the tasks block (f_hang_report), kill it, and
# return 124
FAULTS_FIO_LIMIT=${FAULTS_FIO_LIMIT:-1800}
f_wait() {
	local pid=$1 name=$2 end=$((SECONDS + FAULTS_FIO_LIMIT)) f
	while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$end" ]; do
		sleep 5
	done
	if kill -0 "$pid" 2>/dev/null; then
		log "$f_tag: fio $name still running after $FAULTS_FIO_LIMIT s: $(tail -c 300 "/tmp/fio-$name.out" | tr '\n' ' ')"
		# Not the transports once rpcrdma was reloaded: an rdma
		# rpc_xprt (port 0, state BOUND: likely the NFSv4.1
		# backchannel's, whose xprt_setup_rdma_bc() takes no module
		# reference) can outlive the module, its netid string then in
		# the unloaded module's memory: reading its info oopsed (6.1)
		for f in /sys/kernel/debug/sunrpc/rpc_xprt/*/info /sys/kernel/debug/sunrpc/rpc_clnt/*/tasks; do
			case $f in */rpc_xprt/*) [ "${f_reloaded:-0}" = 0 ] || continue ;; esac
			[ -f "$f" ] && log "$f: $(head -c 600 "$f" | tr '\n' ';')"
		done
		log "$f_tag: rdma: $(rdma resource show qp 2>&1 | tr '\n' ';'); portlist: $(tr '\n' ' ' </proc/fs/nfsd/portlist)"
		[ -f "$CONNS" ] && log "$f_tag: connections: $(tr '\n' ';' <"$CONNS")"
		f_hang_report "$name"
		pkill -9 -f "name=$name" || true
		wait "$pid" || true
		return 124
	fi
	wait "$pid"
}

# The removal's events, in a tracing instance of their own (the main
# buffer keeps our forget event for its check): the transports' timers,
# retransmissions, connects and disconnects on both sides, the server's
# dropped requests and reply-cache hits, and every rpcrdma error
F_TRACE=/sys/kernel/tracing/instances/faults
f_trace_events=(sunrpc:rpc_timeout_status sunrpc:rpc_task_timeout sunrpc:xprt_timer sunrpc:xprt_retransmit
	sunrpc:xprt_connect sunrpc:xprt_disconnect_auto sunrpc:xprt_disconnect_force
	sunrpc:xprt_disconnect_done sunrpc:rpc_connect_status sunrpc:svc_drop
	sunrpc:svc_defer sunrpc:svc_xprt_close sunrpc:svc_xprt_accept
	nfsd:nfsd_drc_found nfsd:nfsd_drc_mismatch
	rpcrdma:xprtrdma_device_removal rpcrdma:xprtrdma_disconnect
	rpcrdma:xprtrdma_connect rpcrdma:xprtrdma_op_connect
	rpcrdma:svcrdma_device_removal rpcrdma:svcrdma_qp_error
	rpcrdma:svcrdma_wc_read_flush)
f_trace_start() {
	local e
	mkdir -p "$F_TRACE"
	echo 4096 >"$F_TRACE/buffer_size_kb"
	for e in "${f_trace_events[@]}" $(grep -E '^rpcrdma:.*_err$|^rpcrdma_inline:rpcrdma_wqe_inline_create_qp$' \
		/sys/kernel/tracing/available_events); do
		echo "$e" >>"$F_TRACE/set_event" 2>/dev/null || log "$f_tag: no event $e in this kernel"
	done
	echo >"$F_TRACE/trace"
}

# "EVENT=N ..." for the events seen since f_trace_start
f_trace_counts() {
	awk '$0 !~ /^#/ { for (i = 4; i <= NF; i++) if ($i ~ /^[a-z][a-z_0-9]*:$/) { sub(/:$/, "", $i); n[$i]++; break } }
		END { for (e in n) printf "%s=%d ", e, n[e] }' "$F_TRACE/trace"
}

f_trace_stop() {
	log "$f_tag: events during the removal: $(f_trace_counts)"
	cp "$F_TRACE/trace" "/out/faults-trace-$f_mod.txt" 2>/dev/null || true
	echo >"$F_TRACE/set_event"
	rmdir "$F_TRACE" 2>/dev/null || true
}

# f_removal_ok NAME RC: fio NAME came through the removal. Exit 0; or, as
# the kernel's own code allows, its only I/O error is EINVAL from a
# reconnect that raced the removal: when the device goes away between
# rpcrdma_create_id()'s rdma_resolve_addr() and rdma_resolve_route(), the
# cm_id is in RDMA_CM_DEVICE_REMOVAL, rdma_resolve_route() returns -EINVAL
# (cma.c), and call_connect_status() fails the RPC on it instead of
# retrying. That path has no hook of ours; it is told from our QP
# creation by the trace: an rpc_connect_status of -22 after the device's
# removal, and no QP creation that returned -22. Never a verify error.
f_removal_ok() {
	local name=$1 rc=$2 out=/tmp/fio-$1.out tr=/out/faults-trace-$f_mod.txt
	[ "$rc" = 0 ] && return 0
	[ "$rc" = 1 ] || return 1
	grep -qE 'verify: bad|verify failed|mismatch' "$out" && return 1
	# every error fio reports is 22 (its job lines say "err= 0" when none)
	grep -oE 'err= *[0-9]+' "$out" | grep -vqE '= *(0|22)$' && return 1
	grep -qE 'err= *22' "$out" || return 1
	grep -q 'xprtrdma_device_removal' "$tr" &&
		grep -q 'rpc_connect_status:.*status=-22' "$tr" &&
		! grep -q 'rpcrdma_wqe_inline_create_qp:.*ret=-22' "$tr" || return 1
	log "$f_tag: fio $name ended on EINVAL from a reconnect that raced the removal" \
		"(rpc_connect_status -22, no QP creation refused: rdma_resolve_route() after DEVICE_REMOVAL)"
	return 0
}

# f_hang_report NAME: where an fio that never ends stands, beyond the RPC
# task lists: the stacks of the nfsd threads and of every task in D state
# (read from /proc, not sysrq-w, whose Call Traces the kernel-problem scan
# would count: the checks say what failed), the reply cache, both sides'
# RPC counters, the NFS client's complaints and the removal's events
f_hang_report() {
	local name=$1 p st comm
	for p in /proc/[0-9]*; do
		st=$(awk '/^State/ { print $2; exit }' "$p/status" 2>/dev/null) || continue
		comm=$(cat "$p/comm" 2>/dev/null) || continue
		[ "$st" = D ] || [ "$comm" = nfsd ] || continue
		log "$f_tag: task ${p#/proc/} $comm $st: $(tr '\n' ';' <"$p/stack" 2>/dev/null)"
	done
	log "$f_tag: reply cache: $(tr -s ' \n' ' ' </proc/fs/nfsd/reply_cache_stats 2>/dev/null)"
	log "$f_tag: server rpc: $(grep -E '^(rc|net|rpc|proc3|th)' /proc/net/rpc/nfsd 2>/dev/null | tr '\n' ';')"
	log "$f_tag: client rpc: $(grep -E '^(net|rpc)' /proc/net/rpc/nfs 2>/dev/null | tr '\n' ';')"
	log "$f_tag: client transports: $(grep -E 'fstype nfs|xprt:' /proc/self/mountstats | tr -s ' \t' ' ' | tr '\n' ';')"
	log "$f_tag: NFS client messages: $(dmesg | grep -E 'not responding|server .* OK|rpcrdma|xprtrdma' | tail -n 20 | tr '\n' ';')"
	if [ -d "$F_TRACE" ]; then
		log "$f_tag: events so far: $(f_trace_counts)"
		grep -v '^#' "$F_TRACE/trace" | tail -n 60 | sed "s/^/# $f_tag: trace: /"
		cp "$F_TRACE/trace" "/out/faults-hang-$name-$f_mod.txt" 2>/dev/null || true
	fi
	f_trace_tasks "$name"
}

# f_trace_tasks NAME: what the stuck tasks do for 30 s: asleep for good,
# or woken and put back to sleep (which re-arms their timer) with nothing
# sent; in an instance of its own, so that the removal's events stay
f_trace_tasks() {
	local inst=/sys/kernel/tracing/instances/faults-tasks e
	local events=(rpc_task_sleep rpc_task_wakeup rpc_task_run_action rpc_task_timeout
		xprt_transmit xprt_lookup_rqst svc_process)
	mkdir -p "$inst"
	for e in "${events[@]}"; do
		echo "sunrpc:$e" >>"$inst/set_event" 2>/dev/null || log "$f_tag: no event sunrpc:$e"
	done
	sleep 30
	echo >"$inst/set_event"
	log "$f_tag: events in the 30 s after fio $1 was seen hung: $(F_TRACE=$inst f_trace_counts)"
	# The lines of the tasks still listed, as the events name them
	cat /sys/kernel/debug/sunrpc/rpc_clnt/*/tasks 2>/dev/null |
		while read -r pid _ _ clid _; do printf 'task:%08x@%08x\n' "$pid" "$clid"; done |
		grep -F -f - "$inst/trace" | tail -n 30 | sed "s/^/# $f_tag: trace: /" || true
	cp "$inst/trace" "/out/faults-hang-$1-$f_mod-tasks.txt" 2>/dev/null || true
	rmdir "$inst" 2>/dev/null || true
}

fio_summary() {
	grep -E 'err=|WRITE:|READ:|verify: bad|mismatch' "/tmp/fio-$1.out" | tr -s ' ' | tr '\n' ';'
}

# f_check NAME COMMAND...: a check with our module; with the stock module
# the same result is only logged, to stand beside ours ("ours must do at
# least as well": the stock module's failures are the kernel's, not ours)
f_check() {
	local name=$1
	shift
	if [ "$f_mod" = ours ]; then
		check "$name" "$@"
	elif "$@"; then
		log "$name: ok"
	else
		log "$name: FAILED (stock module; not counted)"
	fi
}

ensure_server() {
	if ! grep -q rdma /proc/fs/nfsd/portlist 2>/dev/null; then
		nfs_server_start /export
	fi
}

ensure_server
if [ "$f_mod" = ours ]; then
	echo 1 >/sys/kernel/tracing/events/rpcrdma_inline/rpcrdma_wqe_inline_forget/enable
fi
f_start=$(settle f_state "$(f_state)")
log "$f_tag: start: $f_start"

# ---------------------------------------------------------------- 1. removal
nfs_mount 3 /mnt
nfs_mount 4.1 /mnt2
t=$SECONDS
fio_verify rm3 --directory=/mnt --size="${FAULTS_FIO_MIB}m" --loops=3 &
p3=$!
fio_verify rm41 --directory=/mnt2 --size="${FAULTS_FIO_MIB}m" --loops=3 &
p41=$!
sleep 5
f_trace_start
log "$f_tag: deleting rxe0 under load ($(f_state))"
rdma link delete rxe0
sleep 5
rdma link add rxe0 type rxe netdev dummy0
log "$f_tag: rxe0 added again after $((SECONDS - t)) s"
r3=0 r41=0
f_wait "$p3" rm3 || r3=$?
f_wait "$p41" rm41 || r41=$?
log "$f_tag: removal: both fio ended $((SECONDS - t)) s after the start; fio v3 exit $r3: $(fio_summary rm3)"
log "$f_tag: removal: fio v4.1 exit $r41: $(fio_summary rm41)"
f_trace_stop
f_check "$f_tag: rxe0 removed under fio: v3 fio ends, 0 verify errors" f_removal_ok rm3 "$r3"
f_check "$f_tag: rxe0 removed under fio: v4.1 fio ends, 0 verify errors" f_removal_ok rm41 "$r41"
f_check "$f_tag: after the removal the v3 mount carries data" data_roundtrip /mnt 1
f_check "$f_tag: after the removal the v4.1 mount carries data" data_roundtrip /mnt2 1
if [ "$f_mod" = ours ]; then
	f_conns=$(grep -c . "$CONNS" || true)
	log "$f_tag: connections after the removal: $(tr '\n' ';' <"$CONNS")"
	f_check "$f_tag: connections lists the live ones only (4: $f_conns)" test "$f_conns" = 4
	f_check "$f_tag: every listed connection is on the new rxe0, with its grant learned again" \
		bash -c "! grep -v 'device=rxe0 asked=256 granted=[0-9]* max=256' $CONNS"
	f_check "$f_tag: the device was forgotten when it went away" \
		grep -q 'rpcrdma_wqe_inline_forget: device=rxe0' /sys/kernel/tracing/trace
fi
umount /mnt2
umount /mnt
f_now=$(settle f_state "$f_start")
log "$f_tag: removal: end: $f_now"
f_check "$f_tag: removal: QPs, CM IDs and lists back to the start ($f_now)" test "$f_now" = "$f_start"

# ---------------------------------------------------------------- 2. churn
f_slab0=$(kmalloc_objects)
t=$SECONDS
f_fail=0
for i in $(seq "$FAULTS_CYCLES"); do
	if ! mount -t nfs -o "rdma,port=$NFS_RDMA_PORT,vers=3" "$NFS_SERVER:$NFS_EXPORT" /mnt ||
		! stat /mnt/. >/dev/null || ! umount /mnt; then
		f_fail=$((f_fail + 1))
		log "$f_tag: mount cycle $i failed"
		mountpoint -q /mnt && umount /mnt
	fi
done
f_now=$(settle f_state "$f_start")
log "$f_tag: churn: $FAULTS_CYCLES mount/unmount cycles in $((SECONDS - t)) s, $f_fail failed; $f_now"
f_check "$f_tag: $FAULTS_CYCLES mount/unmount cycles, none failed" test "$f_fail" = 0
f_check "$f_tag: after $FAULTS_CYCLES cycles: QPs, CM IDs and lists back to the start ($f_now)" \
	test "$f_now" = "$f_start"
f_slab_check "after $FAULTS_CYCLES cycles" "$f_slab0" "$FAULTS_CYCLES"

t=$SECONDS
f_fail=0
nfs_server_stop
# Two reloads first: the first ones leave the kernel a slab or two more
# for good (6.12: kmalloc-32 +128 and +259 over 20 reloads, then nothing
# over 20 more)
# rdma transports that outlive the v4.1 umount and nfsd's stop: the stock
# NFSv4.1 backchannel's (xprt_setup_rdma_bc() never frees it, nor holds
# rpcrdma: hook 08-svc-backchannel fixes both). Their info is not safe to
# read once the module that made them is gone: after a first pass's
# reloads, reading one oopsed 7.3 in xprt_info_show() (a stale ops
# pointer). It is safe while every rdma rpc_xprt is the loaded module's:
# before any reload, or when the revert phase saw ours leave none
# ($rv_left); else only their number.
if [ "${f_reloaded:-0}" = 0 ] || [ "${rv_left:-}" = 0 ]; then
	f_rdma=$(settle rdma_rpc_xprts 0 40 0.5)
	log "$f_tag: rdma rpc_xprts before the reloads, with no mount and nfsd stopped: $f_rdma: $(rdma_rpc_xprt_list)"
	f_check "$f_tag: no rdma rpc_xprt stays after the v4.1 umounts and nfsd's stop ($f_rdma)" \
		test "$f_rdma" = 0
else
	log "$f_tag: rpc_xprts of any transport before the reloads, with no mount and nfsd stopped (rpcrdma was unloaded before: their info is not read): $(find "$RPC_XPRTS" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)"
fi
f_reloaded=1
for i in 1 2; do unload_rpcrdma && modprobe rpcrdma || f_fail=$((f_fail + 1)); done
f_slab0=$(kmalloc_objects)
f_kmem_start
for i in $(seq "$FAULTS_RELOADS"); do
	if ! unload_rpcrdma || ! modprobe rpcrdma; then
		f_fail=$((f_fail + 1))
		log "$f_tag: reload $i failed"
	fi
	if [ "$i" = $((FAULTS_RELOADS / 2)) ]; then f_kmem_mark; fi
done
f_which=stock
if ours_loaded; then f_which=ours; fi
f_check "$f_tag: $FAULTS_RELOADS unloads and reloads of rpcrdma, the same module loaded ($f_which)" \
	test "$f_fail $f_which" = "0 $f_mod"
f_kmem_report "after $FAULTS_RELOADS reloads" $((FAULTS_RELOADS - FAULTS_RELOADS / 2))
# Not read: with the stock module an rdma one may be of an unloaded copy
log "$f_tag: rpc_xprts of any transport after the reloads (not read): $(find "$RPC_XPRTS" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)"
f_slab_check "after $FAULTS_RELOADS reloads" "$f_slab0" "$FAULTS_RELOADS"
nfs_server_start /export
log "$f_tag: churn: $FAULTS_RELOADS reloads in $((SECONDS - t)) s"

nfs_mount 3 /mnt
fio_verify restart --directory=/mnt --size="${FAULTS_FIO_MIB}m" --loops=2 &
p=$!
for i in 1 2; do
	sleep 4
	rpc.nfsd 0
	sleep 1
	rpc.nfsd "$NFS_THREADS"
	echo "rdma $NFS_RDMA_PORT" >/proc/fs/nfsd/portlist
	log "$f_tag: nfsd restarted ($i) under fio"
done
r=0
f_wait "$p" restart || r=$?
log "$f_tag: nfsd restarts: fio exit $r: $(fio_summary restart)"
f_check "$f_tag: nfsd restarted twice under fio: fio ends, 0 verify errors" test "$r" = 0
umount /mnt
f_now=$(settle f_state "$f_start")
f_check "$f_tag: after the restarts: QPs, CM IDs and lists back to the start ($f_now)" \
	test "$f_now" = "$f_start"

# ---------------------------------------------------------------- 3. many
# A new rxe0, so that no memory of the device shortens the negotiation
rdma link delete rxe0
rdma link add rxe0 type rxe netdev dummy0
insmod "$GUEST_MODULES/inline_limit.ko" limit=101
f_start_many=$(f_state)
t=$SECONDS
pids=()
for v in 3 4.0 4.1 4.2; do
	mkdir -p "/m$v"
	mount -t nfs -o "rdma,port=$NFS_RDMA_PORT,vers=$v,nconnect=16" \
		"$NFS_SERVER:$NFS_EXPORT" "/m$v" &
	pids+=($!)
done
f_fail=0
for p in "${pids[@]}"; do wait "$p" || f_fail=$((f_fail + 1)); done
f_check "$f_tag: four nconnect=16 mounts made at once" test "$f_fail" = 0
r=0
fio_verify many --directory=/m3:/m4.0:/m4.1:/m4.2 --numjobs=8 --size=2m || r=$?
log "$f_tag: many: fio 8 jobs exit $r: $(fio_summary many)"
f_check "$f_tag: fio with 8 jobs over the four mounts: 0 verify errors" test "$r" = 0
if [ "$f_mod" = ours ]; then
	f_conns=$(grep -c . "$CONNS" || true)
	f_attempts=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^attempts=/) s += substr($i, 10) } END { print s + 0 }' "$CONNS")
	log "$f_tag: many: $f_conns connections took $f_attempts QP creations ($(cat /sys/module/inline_limit/parameters/refused) refused by the device) in $((SECONDS - t)) s"
	# Only connections that negotiate before the first result is kept
	# probe: at most the four first clients and their servers, 10 extra
	# attempts each (256 down to 96); then every 16th connection of each
	# side probes again from inline_size (so a size can go back up)
	f_check "$f_tag: the per-device memory kept QP creations close to one per connection ($f_attempts for $f_conns)" \
		test "$f_attempts" -le $((f_conns + 8 * 10 + 2 * (f_conns / 32 + 1) * 10))
	f_check "$f_tag: every connection may post 96 bytes inline" \
		bash -c "! grep -v ' max=96 ' $CONNS"
fi
for v in 3 4.0 4.1 4.2; do umount "/m$v"; done
f_now=$(settle f_state "$f_start_many")
f_check "$f_tag: many: QPs, CM IDs and lists back to the start ($f_now)" test "$f_now" = "$f_start_many"
rmmod inline_limit
