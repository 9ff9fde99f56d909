#!/bin/bash
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): the client posts small
# Calls inline (GETATTR, small WRITEs), 4 KiB WRITEs whose REG_MR is chained
# in front of the Send go by reference; each side can be switched off on
# its own, for new connections.

param=/sys/module/rpcrdma/parameters
for vers in 3 4.1; do
	insmod "$GUEST_MODULES/inline_limit.ko" device=rxe0
	nfs_mount "$vers" /mnt
	check "vers=$vers: client granted 256 on rxe" test "$(conn_field client max)" = 256
	head -c 4096 /dev/urandom >/tmp/meta
	cp /tmp/meta /mnt/meta
	sync

	in0=$(conn_field client inline) br0=$(conn_field client byref)
	for _ in $(seq 50); do head -c 1 /mnt/meta >/dev/null; done
	in1=$(conn_field client inline) br1=$(conn_field client byref)
	log "vers=$vers: 50 opens: client +$((in1 - in0)) inline, +$((br1 - br0)) by reference"
	check "vers=$vers: GETATTR Calls went inline" test $((in1 - in0)) -ge 50

	head -c 256 /dev/urandom >/tmp/small
	dd if=/tmp/small of=/mnt/small bs=16 count=16 oflag=direct status=none
	in2=$(conn_field client inline) br2=$(conn_field client byref)
	log "vers=$vers: 16 16-byte WRITEs: client +$((in2 - in1)) inline, +$((br2 - br1)) by reference"
	check "vers=$vers: small WRITE Calls went inline" test $((in2 - in1)) -ge 16
	check "vers=$vers: small writes read back equal" cmp /tmp/small /export/small

	dd if=/dev/urandom of=/mnt/big bs=4k count=16 oflag=direct status=none
	in3=$(conn_field client inline) br3=$(conn_field client byref)
	log "vers=$vers: 16 4-KiB WRITEs: client +$((in3 - in2)) inline, +$((br3 - br2)) by reference"
	check "vers=$vers: 4 KiB WRITE Calls (REG_MR chained) went by reference" test $((br3 - br2)) -ge 16

	check "vers=$vers: the driver agrees with both sides' counters" \
		test "$(driver_sends inline) $(driver_sends byref)" = "$(($(conn_field server inline) + $(conn_field client inline))) $(($(conn_field server byref) + $(conn_field client byref)))"
	nfs_umount /mnt
	conns_gone || true
	rmmod inline_limit
done

# One side at a time; the integrity workload's Sends on each side
for mode in both server-only client-only; do
	case $mode in
	both) echo Y >"$param/server_inline"; echo Y >"$param/client_inline" ;;
	server-only) echo Y >"$param/server_inline"; echo N >"$param/client_inline" ;;
	client-only) echo N >"$param/server_inline"; echo Y >"$param/client_inline" ;;
	esac
	nfs_mount 3 /mnt
	check "$mode: integrity workload compares equal" integrity_workload /mnt /export
	s="$(conn_field server max) $(conn_field server inline) $(conn_field server byref)"
	c="$(conn_field client max) $(conn_field client inline) $(conn_field client byref)"
	log "$mode: integrity workload Sends: server max=${s%% *} inline/byref=$(cut -d' ' -f2- <<<"$s" | tr ' ' /), client max=${c%% *} inline/byref=$(cut -d' ' -f2- <<<"$c" | tr ' ' /)"
	case $mode in
	server-only)
		check "$mode: the client asked for nothing and posted nothing inline" \
			test "$(conn_field client asked) $(conn_field client inline)" = "0 0"
		check "$mode: the server still posts inline" test "$(conn_field server inline)" -gt 0 ;;
	client-only)
		check "$mode: the server asked for nothing and posted nothing inline" \
			test "$(conn_field server asked) $(conn_field server inline)" = "0 0"
		check "$mode: the client still posts inline" test "$(conn_field client inline)" -gt 0 ;;
	both)
		check "$mode: both sides post inline" \
			test "$(conn_field server inline)" -gt 0 -a "$(conn_field client inline)" -gt 0 ;;
	esac
	nfs_umount /mnt
	conns_gone || true
done
echo Y >"$param/server_inline"
echo Y >"$param/client_inline"
