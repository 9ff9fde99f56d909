#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): the per-driver inline
# policy (docs/devices.md), on rxe0 wrapped by tests/modules/inline_limit.ko
# so that it reports another driver's driver_id, refuses inline data above
# that driver's limit, or grants none (report_zero, as mlx4 does). rxe0 is
# deleted and added again before each row, so that the per-device memory
# starts empty and the client's connection is the first on the device.
#
# Each row checks what the driver itself saw: the largest inline data size
# any RC QP creation asked for (max_asked), how many it refused, and the
# Sends posted with and without IB_SEND_INLINE, against our counters.

param=/sys/module/rpcrdma/parameters
DEVS=/sys/kernel/debug/rpcrdma_inline/devices

# enum rdma_driver_id (include/uapi/rdma/ib_user_ioctl_verbs.h, stable UAPI)
DRV_MLX4=2 DRV_BNXT_RE=6 DRV_IRDMA=9 DRV_RXE=14 DRV_SIW=18 DRV_ERDMA=19
# A number no in-tree driver uses: a driver nobody has audited
DRV_UNAUDITED=99

# The devices line of rxe0: one KEY=VALUE, or the reason (the rest of it)
dev_field() {
	local line
	line=$(grep '^rxe0 ' "$DEVS" | head -n 1)
	if [ "$1" = why ]; then
		sed -n 's/.* why=//p' <<<"$line"
	else
		tr ' ' '\n' <<<"$line" | sed -n "s/^$1=//p"
	fi
}

drv_param() {
	cat "/sys/module/inline_limit/parameters/$1"
}

# inline_drivers: bad values are refused, logged, and the old value stays
echo "rxe:on" >"$param/inline_drivers"
check "inline_drivers=rxe:on is taken" test "$(cat "$param/inline_drivers")" = "rxe:on"
for bad in "nosuchdrv:on" "rxe:yes" "rxe" "rxe:on,,siw:on" "1234:on"; do
	check "inline_drivers=$bad is refused" bash -c "! echo '$bad' >$param/inline_drivers 2>/dev/null"
done
check "a refused inline_drivers keeps the old value" test "$(cat "$param/inline_drivers")" = "rxe:on"
check "the refusal is logged, naming the bad item" \
	bash -c "dmesg | grep -q \"inline_drivers=nosuchdrv:on refused: malformed or unknown driver in 'nosuchdrv:on'\""
echo "" >"$param/inline_drivers"
check "inline_drivers can be emptied" test -z "$(cat "$param/inline_drivers")"

want=$(cat "$param/inline_size")
# name driver_id limit report_zero inline_drivers | expected: policy, the
# first size asked, asked and max of both connections, attempts of each
# (each side probes on its own: memos are kept per side and QP shape;
# where inline data is negotiated, the first creation asks for none);
# "-" is no limit, no override, the device's own
# driver_id
while read -r name id limit zero override policy first asked max attempts; do
	rdma link delete rxe0
	rdma link add rxe0 type rxe netdev dummy0
	args=()
	[ "$id" = - ] || args+=("driver_id=$id")
	[ "$limit" = - ] || args+=("limit=$limit")
	[ "$zero" = 0 ] || args+=("report_zero=1")
	insmod "$GUEST_MODULES/inline_limit.ko" "${args[@]}"
	if [ "$override" = - ]; then override=""; fi
	echo "$override" >"$param/inline_drivers"
	nfs_mount 3 /mnt
	log "$name: $(tr '\n' ';' <"$CONNS") devices: $(tr '\n' ';' <"$DEVS")"
	check "$name: devices says policy=$policy" test "$(dev_field policy)" = "$policy"
	check "$name: client asked $asked, may post $max inline, after $attempts attempts" \
		test "$(conn_field client asked) $(conn_field client max) $(conn_field client attempts)" = "$asked $max $attempts"
	check "$name: the server's connection asked $asked, after $attempts attempts of its own" \
		test "$(conn_field server asked) $(conn_field server max) $(conn_field server attempts)" = "$asked $max $attempts"
	# (the first creation of each side asks for no inline data, as the
	# stock module's, and is not refused)
	nref=$((attempts > 1 ? 2 * (attempts - 2) : 0))
	check "$name: the driver refused $nref QP creations, each side's probe" \
		test "$(drv_param refused)" = "$nref"
	check "$name: the largest inline size the driver was asked is $first" \
		test "$(drv_param max_asked)" = "$first"
	check "$name: data compares equal" data_roundtrip /mnt 1
	read -r _ s_in s_br c_in c_br _ _ _ _ _ _ d_in d_br _ <<<"$(counts_settled)"
	log "$name: Sends: server $s_in/$s_br, client $c_in/$c_br (inline/byref); driver $d_in/$d_br; why: $(dev_field why)"
	check "$name: the driver saw the Sends our counters report" \
		test "$d_in $d_br" = "$((s_in + c_in)) $((s_br + c_br))"
	reg_in=$(drv_param sends_reg_inline) reg_br=$(drv_param sends_reg_byref)
	log "$name: Calls behind a REG_MR: driver $reg_in inline, $reg_br by reference"
	if [ "$max" = 0 ]; then
		check "$name: the driver saw no Call behind a REG_MR inline" test "$reg_in" = 0
	elif [ "$(dev_field behind_reg)" = off ]; then
		# no ordering rule after a REG_MR in the driver's source
		check "$name: behind_reg=off: the driver saw no Call behind a REG_MR inline, $reg_br by reference" \
			test "$reg_in" = 0 -a "$reg_br" -ge 256
	elif [ "$max" -ge 200 ]; then
		# data_roundtrip's 1 MiB: 256 WRITE and 256 READ Calls, each
		# behind the REG_MR of its chunk
		check "$name: the driver saw the Calls behind REG_MRs inline ($reg_in of $((reg_in + reg_br)))" \
			test "$reg_in" -ge 256
	fi
	if [ "$max" = 0 ]; then
		check "$name: the driver saw no inline Send" test "$d_in" = 0
		check "$name: every Send by reference is counted as 'off'" \
			test "$(conn_field server off) $(conn_field client off)" = "$s_br $c_br"
	elif [ "$max" -ge 200 ]; then
		check "$name: the driver saw inline Sends ($d_in)" test "$d_in" -gt 0
	fi
	case $name in
	bnxt_re)
		check "bnxt_re: devices says why: posts inline WRs without their payload" \
			test "$(dev_field why)" = "posts inline WRs without their payload"
		check "bnxt_re: devices names the driver" test "$(dev_field driver)" = bnxt_re
		;;
	unaudited-opted-in-refusing)
		check "$name: the kernel log says the QP was created without inline data" \
			grep -qF "rpcrdma: rxe0: client QP created without inline data: the device refused every size from $want bytes down ($attempts attempts)" <<<"$(dmesg)"
		;;
	irdma-*|erdma)
		check "$name: devices says behind_reg=off, audited=6.1,6.12,7.3" \
			test "$(dev_field behind_reg) $(dev_field audited)" = "off 6.1,6.12,7.3"
		;;
	rxe|siw)
		check "$name: devices says behind_reg=on, audited=6.1,6.12,7.3" \
			test "$(dev_field behind_reg) $(dev_field audited)" = "on 6.1,6.12,7.3"
		;;
	unaudited)
		check "unaudited: devices says audited=-" test "$(dev_field audited)" = -
		check "unaudited: devices names the driver by its number" \
			test "$(dev_field driver)" = "$DRV_UNAUDITED"
		check "unaudited: devices says it is not audited" \
			grep -q 'not audited' <<<"$(dev_field why)"
		;;
	esac
	nfs_umount /mnt
	conns_gone || true
	rmmod inline_limit
done <<ROWS
bnxt_re $DRV_BNXT_RE - 0 - off 0 0 0 1
mlx4 $DRV_MLX4 - 1 - off 0 0 0 1
mlx4-opted-in $DRV_MLX4 - 1 mlx4:on on $want $want 0 2
siw $DRV_SIW 80 0 - on 80 80 80 2
irdma-gen3 $DRV_IRDMA 216 0 - on 216 216 216 2
irdma-gen2 $DRV_IRDMA 101 0 - on 216 101 101 3
irdma-gen1 $DRV_IRDMA 48 0 - on 216 48 48 4
erdma $DRV_ERDMA 96 0 - on 96 96 96 2
unaudited $DRV_UNAUDITED - 0 - off 0 0 0 1
unaudited-opted-in $DRV_UNAUDITED - 0 $DRV_UNAUDITED:on on $want $want $want 2
unaudited-opted-in-refusing $DRV_UNAUDITED 0 0 $DRV_UNAUDITED:on on $want 0 0 $((want / 16 + 2))
rxe-opted-out - - 0 rxe:off off 0 0 0 1
rxe $DRV_RXE - 0 - on $want $want $want 2
ROWS
echo "" >"$param/inline_drivers"
