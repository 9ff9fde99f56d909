#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): the data path the
# design measured, watched at the driver (tests/modules/inline_limit.ko
# counts the Send WRs posted, and those with a REG_MR ahead of them in
# their chain). Per NFS version (3, 4.1), fio 4 KiB QD1 randwrite (its
# crc32c verify reads after) and randread on one file:
#  - at least 95% of the client's Calls, and of those behind a REG_MR,
#    reach the driver with IB_SEND_INLINE;
#  - our counters equal the driver's counts, and the tracepoint's Calls
#    behind REG_MRs equal the driver's;
#  - every byte equal: fio's verify, and the file through the mount
#    against the export's copy.
# Then, per setting that keeps them by reference (rxe:alone, where the
# driver's bit is off; client_inline=N; inline_size=0), randwrite again:
# the driver sees no Call behind a REG_MR with IB_SEND_INLINE, and ours
# count them under the reason that setting gives.

DP_MIB=${DP_MIB:-2}
param=/sys/module/rpcrdma/parameters
dp_size=$(cat "$param/inline_size")

dp_reg() { # inline|byref: the driver's Sends behind a REG_MR
	cat "/sys/module/inline_limit/parameters/sends_reg_$1"
}

# dp_fio RW [EXTRA...]: 4 KiB QD1 O_DIRECT on /mnt/dp
dp_fio() {
	local rw=$1
	shift
	fio --name="dp-$rw" --filename=/mnt/dp --size="${DP_MIB}m" --bs=4k \
		--ioengine=psync --iodepth=1 --direct=1 --rw="$rw" "$@" \
		--output="/tmp/dp-$rw.out"
}

# One connection each, its counts from zero: the driver's and the
# tracepoint's start with it
dp_mount() { # VERS
	insmod "$GUEST_MODULES/inline_limit.ko"
	hist_start
	nfs_mount "$1" /mnt
}

dp_umount() {
	hist_stop
	rm -f /mnt/dp
	nfs_umount /mnt
	conns_gone || true
	rmmod inline_limit
}

if ! grep -q rdma /proc/fs/nfsd/portlist 2>/dev/null; then
	nfs_server_start /export
fi
for vers in 3 4.1; do
	t=$SECONDS
	dp_mount "$vers"
	read -r _ _ _ c_in0 c_br0 _ _ _ _ _ _ _ _ _ _ _ dr_in0 dr_br0 <<<"$(counts_settled)"
	check "datapath: vers=$vers: fio randwrite, verified" dp_fio randwrite --verify=crc32c
	check "datapath: vers=$vers: fio randread" dp_fio randread
	echo 3 >/proc/sys/vm/drop_caches
	check "datapath: vers=$vers: the file through the mount equals the export's" cmp /mnt/dp /export/dp
	read -r _ s_in s_br c_in c_br _ _ _ _ _ _ d_in d_br _ tr_in tr_br dr_in dr_br <<<"$(counts_settled)"
	calls=$((c_in - c_in0 + c_br - c_br0)) calls_in=$((c_in - c_in0))
	regs=$((dr_in - dr_in0 + dr_br - dr_br0)) regs_in=$((dr_in - dr_in0))
	log "datapath: vers=$vers: client Calls $calls_in of $calls inline; behind a REG_MR, the driver saw $regs_in of $regs inline"
	log "datapath: vers=$vers: client: $(conn_line client | cut -d' ' -f8-)"
	check "datapath: vers=$vers: fio made at least $((DP_MIB * 256)) Calls behind a REG_MR ($regs)" \
		test "$regs" -ge $((DP_MIB * 256))
	check "datapath: vers=$vers: at least 95% of the client's Calls reached the driver inline ($calls_in of $calls)" \
		test $((calls_in * 100)) -ge $((calls * 95))
	check "datapath: vers=$vers: at least 95% of those behind a REG_MR too ($regs_in of $regs)" \
		test $((regs_in * 100)) -ge $((regs * 95))
	check "datapath: vers=$vers: the driver saw the Sends our counters report" \
		test "$d_in $d_br" = "$((s_in + c_in)) $((s_br + c_br))"
	check "datapath: vers=$vers: the driver saw the Calls behind REG_MRs that our tracepoint did" \
		test "$dr_in $dr_br" = "$tr_in $tr_br"
	dp_umount
	log "datapath: vers=$vers took $((SECONDS - t)) s"
done

# SETTING REASON: each keeps the Calls behind REG_MRs by reference
while read -r setting reason; do
	case $setting in
	rxe:alone) echo rxe:alone >"$param/inline_drivers" ;;
	client_inline=N) echo N >"$param/client_inline" ;;
	inline_size=0) echo 0 >"$param/inline_size" ;;
	esac
	dp_mount 3
	read -r _ _ _ _ _ _ _ _ _ _ _ d_in0 _ _ _ _ dr_in0 dr_br0 <<<"$(counts_settled)"
	r0=$(conn_field client "$reason")
	check "datapath: $setting: fio randwrite, verified" dp_fio randwrite --verify=crc32c
	check "datapath: $setting: the file through the mount equals the export's" cmp /mnt/dp /export/dp
	read -r _ _ _ _ _ _ _ _ _ _ _ d_in _ _ _ _ dr_in dr_br <<<"$(counts_settled)"
	log "datapath: $setting: behind a REG_MR the driver saw $((dr_in - dr_in0)) inline, $((dr_br - dr_br0)) by reference; client: $(conn_line client | cut -d' ' -f8-)"
	check "datapath: $setting: the driver saw no Call behind a REG_MR inline" test "$dr_in" = "$dr_in0"
	check "datapath: $setting: ... and at least $((DP_MIB * 256)) by reference" \
		test $((dr_br - dr_br0)) -ge $((DP_MIB * 256))
	# chained: exactly the Calls behind REG_MRs; off: every Call
	if [ "$reason" = chained ]; then op=-eq; else op=-ge; fi
	check "datapath: $setting: ours counted them as $reason" \
		test $(($(conn_field client "$reason") - r0)) "$op" $((dr_br - dr_br0))
	if [ "$setting" = inline_size=0 ]; then
		check "datapath: inline_size=0: the driver saw no inline Send at all" test "$d_in" = "$d_in0"
	fi
	dp_umount
	echo "" >"$param/inline_drivers"
	echo Y >"$param/client_inline"
	echo "$dp_size" >"$param/inline_size"
done <<SETTINGS
rxe:alone chained
client_inline=N off
inline_size=0 off
SETTINGS
