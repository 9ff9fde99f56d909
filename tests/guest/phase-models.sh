#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): ours beside the
# stock rpcrdma on NICs no guest has, modelled on rxe0 by
# tests/modules/inline_limit.ko (model=mlx5: a ConnectX-6 Dx; model=irdma:
# an E810). Per model, one round with each module, both on a fresh rxe0
# (empty device memory): a first NFSv3 mount (ours probes its sizes),
# umount, then a second mount of the same shape that must take one RC QP
# creation per side; on it MODELS_MIB MiB written and read in 1 MiB
# O_DIRECT blocks and 1 MiB in 4 KiB blocks, every byte compared through
# the mount and in the export. Counted at the driver: each QP's caps as
# written back and the SGE limits its posts see (max_write_sge,
# max_read_sge), the RDMA Write WRs of the READs and the RDMA Read WRs of
# the WRITEs, posts refused as the real driver would, and the Sends by
# side, inline or not, and size. Then, per model: every cap of ours >=
# stock's, ours <= stock's WRs per MiB, and ours' Sends by size equal to
# the driver's. The figures are logged as "# models: ..." lines.
#
# env: MODELS      the models, in order, separated by spaces or commas
#                  (default "mlx5 irdma"); irdma-pre62
#                  is irdma before 6.2 (an inline Send carries sg_list[0]
#                  alone): our module with irdma opted in must be caught
#                  corrupting Calls, the stock one must not
#      MODELS_MIB  MiB moved in 1 MiB blocks each way (default 8)
# Uses $stock from the install phase; leaves ours loaded and serving.
# shellcheck disable=SC2154 # set by phase-install.sh

MODELS=$(tr , " " <<<"${MODELS:-mlx5 irdma}")
MODELS_MIB=${MODELS_MIB:-8}
IL=/sys/module/inline_limit/parameters
declare -A R=()

il() {
	cat "$IL/$1"
}

rc_qps() {
	rdma res show qp 2>/dev/null | grep -c 'type RC' || true
}

# The qps line of SIDE's last creation: "got" caps and SGE limits as
# "send_sge send_wr inline recv_sge recv_wr write_sge read_sge"
qp_caps() {
	il qps | awk -v s="$1" '$2 == s { l = $0 } END {
		n = split(l, f, " ")
		for (i = 1; i <= n; i++) {
			split(f[i], kv, "=")
			v[kv[1]] = kv[2]
		}
		split(v["got"], g, ",")
		print g[1], g[2], g[3], g[4], g[5], v["write_sge"], v["read_sge"]
	}'
}

# Sends of SIDE by size, "inline le64=.. .. gt1024=.. byref le64=.. .."
# from the driver (sends_sizes) or from our debugfs 'sends' (every how
# but inline and failed is by reference)
driver_sizes() {
	il sends_sizes | awk -v s="$1" '$1 == s {
		printf "%s", $2; for (i = 3; i <= NF; i++) printf " %s", $i; printf " " }'
}
ours_sizes() {
	awk -v s="$1" '$1 == s {
		h = substr($2, 5)
		if (h == "failed") next
		h = h == "inline" ? "inline" : "byref"
		for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] ~ /^(le|gt)[0-9]+$/) n[h, kv[1]] += kv[2] }
	} END {
		split("le64 le128 le256 le512 le1024 gt1024", c, " ")
		for (hh = 1; hh <= 2; hh++) {
			h = hh == 1 ? "byref" : "inline"
			printf "%s", h; for (i = 1; i <= 6; i++) printf " %s=%d", c[i], n[h, c[i]]; printf " "
		}
	}' "$SENDS"
}
sizes_agree_driver() {
	local s _
	for _ in $(seq 20); do
		s=0
		for side in server client; do
			[ "$(driver_sizes "$side")" = "$(ours_sizes "$side")" ] || s=1
		done
		[ "$s" = 0 ] && return 0
		sleep 0.5
	done
	for side in server client; do
		log "models: $side sizes: driver $(driver_sizes "$side"); ours $(ours_sizes "$side")"
	done
	return 1
}

# models_round MODEL ours|stock [inline_limit.ko ARGS]: one round, its
# figures in R[MODEL,MODULE,...]
models_round() {
	local m=$1 mod=$2 k="$1,$2" src=/tmp/models-src w0 r0 ok side opts=
	shift 2
	# (a Call truncated is never answered: a soft mount gives up)
	if [ "$m" = irdma-pre62 ]; then opts=soft,timeo=50,retrans=2,retry=0; fi
	nfs_server_stop
	conns_gone || true
	if [ -d /sys/module/rpcrdma ]; then unload_rpcrdma; fi
	if [ -d /sys/module/inline_limit ]; then rmmod inline_limit; fi
	# (what is still allocated on rxe0 as it goes: the kernel WARNs on it)
	for r in qp cq pd mr cm_id; do
		rdma res show "$r" 2>&1 | sed "s/^/# models: before rdma link delete: $r: /" || true
	done
	rdma link delete rxe0
	rdma link add rxe0 type rxe netdev dummy0
	rxe_wait_active rxe0
	if ! load_rpcrdma_of "$mod"; then
		check "$k: the $mod rpcrdma loads ($(stock_file))" false
		return 0
	fi
	insmod "$GUEST_MODULES/inline_limit.ko" "$@"
	if [ "$mod" = ours ] && [ "$m" = irdma-pre62 ]; then
		echo irdma:on >/sys/module/rpcrdma/parameters/inline_drivers
	fi
	nfs_server_start /export

	# The first connection of this shape on this device
	# (nfs_mount returns what its log line does: ask mountpoint)
	nfs_mount 3 /mnt "$opts" || true
	if ! mountpoint -q /mnt; then
		R[$k,mount]=failed
		R[$k,trunc]=$(il inline_truncated)
		log "models: $k: the first mount failed; driver: $(il inline_truncated) inline Sends truncated"
		return 0
	fi
	stat /mnt/. >/dev/null
	R[$k,first]=$(il qps | awk '{ print $2 ":" $3 }' | tr '\n' ' ')
	nfs_umount /mnt
	conns_gone || true
	settle rc_qps 0 60 0.5 >/dev/null
	echo >"$IL/qps"

	# The second: one creation per side once ours remembers the size
	nfs_mount 3 /mnt "$opts"
	head -c $((MODELS_MIB << 20)) /dev/urandom >"$src"
	ok=0
	r0=$(il read_wrs)
	dd if="$src" of=/mnt/models bs=1M oflag=direct status=none || ok=1
	R[$k,read_wrs]=$(($(il read_wrs) - r0))
	w0=$(il write_wrs)
	dd if=/mnt/models of="$src.back" bs=1M iflag=direct status=none || ok=1
	R[$k,write_wrs]=$(($(il write_wrs) - w0))
	cmp -s "$src" "$src.back" || ok=1
	cmp -s "$src" /export/models || ok=1
	dd if="$src" of=/mnt/models-4k bs=4k count=256 oflag=direct status=none || ok=1
	dd if=/mnt/models-4k of="$src.4k" bs=4k iflag=direct status=none || ok=1
	cmp -s "$src.4k" <(head -c 1M "$src") || ok=1
	cmp -s "$src.4k" /export/models-4k || ok=1
	R[$k,data]=$ok
	R[$k,trunc]=$(il inline_truncated)
	R[$k,refused]="$(il post_sge_over) $(il post_inline_over)"
	R[$k,creations]=$(il qps | awk '{ n[$2]++ } END { print n["server"] + 0, n["client"] + 0 }')
	for side in server client; do
		R[$k,$side]=$(qp_caps "$side")
		R[$k,$side,sizes]=$(driver_sizes "$side")
		if [ "$mod" = ours ]; then
			R[$k,$side,conn]="asked=$(conn_field "$side" asked) granted=$(conn_field "$side" granted) max=$(conn_field "$side" max)"
		fi
	done
	if [ "$mod" = ours ]; then
		R[$k,sizes_agree]=1
		sizes_agree_driver || R[$k,sizes_agree]=0
	fi
	log "models: $k: $(il qps | tr '\n' ';')"
	rm -f /mnt/models /mnt/models-4k "$src" "$src.back" "$src.4k"
	nfs_umount /mnt
}

# models_compare MODEL: the checks, ours against stock
models_compare() {
	local m=$1 o="$1,ours" s="$1,stock" side i names oc sc
	for i in ours stock; do
		if [ -z "${R[$m,$i,data]:-}" ]; then
			check "$m: the $i round moved data (mount: ${R[$m,$i,mount]:-not made})" false
			return 0
		fi
	done
	names=(send_sge send_wr inline recv_sge recv_wr write_sge read_sge)
	for side in server client; do
		read -ra oc <<<"${R[$o,$side]}"
		read -ra sc <<<"${R[$s,$side]}"
		log "models: $m $side caps (${names[*]}): ours ${oc[*]}; stock ${sc[*]}"
		for i in "${!names[@]}"; do
			check "$m: $side ${names[$i]} ours ${oc[$i]:-?} >= stock ${sc[$i]:-?}" \
				test "${oc[$i]:-0}" -ge "${sc[$i]:-1}"
		done
		if [ -n "${R[$o,$side,conn]:-}" ]; then
			log "models: $m $side ours $(tr ' ' ',' <<<"${R[$o,$side,conn]}"); the driver wrote back inline=${oc[2]:-?}"
			check "$m: our $side's debugfs granted= is what the driver wrote back (${oc[2]:-?})" \
				test "$(sed -n 's/.*granted=\([0-9]*\).*/\1/p' <<<"${R[$o,$side,conn]}")" = "${oc[2]:-x}"
		fi
		log "models: $m $side Sends at the driver: ours ${R[$o,$side,sizes]:-}; stock ${R[$s,$side,sizes]:-}"
		check "$m: the stock $side posted no inline Send" \
			grep -q '^byref .*inline le64=0 le128=0 le256=0 le512=0 le1024=0 gt1024=0 $' <<<"${R[$s,$side,sizes]:-x}"
	done
	log "models: $m per $MODELS_MIB MiB: RDMA Write WRs of the READs ours ${R[$o,write_wrs]}, stock ${R[$s,write_wrs]}; RDMA Read WRs of the WRITEs ours ${R[$o,read_wrs]}, stock ${R[$s,read_wrs]}"
	check "$m: RDMA Write WRs per 1 MiB READ ours $((${R[$o,write_wrs]} / MODELS_MIB)) <= stock $((${R[$s,write_wrs]} / MODELS_MIB))" \
		test "${R[$o,write_wrs]}" -le "${R[$s,write_wrs]}"
	check "$m: RDMA Read WRs per 1 MiB WRITE ours $((${R[$o,read_wrs]} / MODELS_MIB)) <= stock $((${R[$s,read_wrs]} / MODELS_MIB))" \
		test "${R[$o,read_wrs]}" -le "${R[$s,read_wrs]}"
	for i in ours stock; do
		log "models: $m $i: first connection's creations (side:rc) ${R[$m,$i,first]}; second's (server client) ${R[$m,$i,creations]}"
		check "$m $i: the second connection took one QP creation per side" test "${R[$m,$i,creations]}" = "1 1"
		check "$m $i: data compares equal" test "${R[$m,$i,data]}" = 0
		check "$m $i: no post refused by the driver (SGEs, inline size)" test "${R[$m,$i,refused]}" = "0 0"
	done
	check "$m: our Sends by side, inline or not, and size equal the driver's" test "${R[$o,sizes_agree]}" = 1
}

for m in $MODELS; do
	case $m in
	mlx5) args=(model=mlx5) ;;
	irdma) args=(model=irdma irdma_gen=2) ;;
	irdma-pre62) args=(model=irdma irdma_gen=2 irdma_pre_6_2=1) ;;
	*)
		check "MODELS: $m is a model" false
		continue
		;;
	esac
	for mod in ours stock; do
		models_round "$m" "$mod" "${args[@]}"
	done
	if [ "$m" = irdma-pre62 ]; then
		# A negative control: the model must catch what the policy has
		# to prevent (irdma off before the multi-SGE fix)
		log "models: $m: ours: mount ${R[$m,ours,mount]:-ok}, data ${R[$m,ours,data]:-}, truncated ${R[$m,ours,trunc]}; stock: truncated ${R[$m,stock,trunc]}"
		check "$m: ours with irdma opted in: inline Calls leave truncated (${R[$m,ours,trunc]})" \
			test "${R[$m,ours,trunc]}" -gt 0
		check "$m: ours with irdma opted in: the corruption is caught (the mount or the data fails)" \
			test "${R[$m,ours,mount]:-}" = failed -o "${R[$m,ours,data]:-0}" != 0
		check "$m: stock: nothing truncated, data compares equal" \
			test "${R[$m,stock,trunc]} ${R[$m,stock,data]:-x}" = "0 0"
		continue
	fi
	models_compare "$m"
done

# Back to ours, serving, on a plain rxe0
nfs_server_stop
conns_gone || true
if [ -d /sys/module/rpcrdma ]; then unload_rpcrdma; fi
if [ -d /sys/module/inline_limit ]; then rmmod inline_limit; fi
rdma link delete rxe0
rdma link add rxe0 type rxe netdev dummy0
rxe_wait_active rxe0
modprobe rpcrdma
check "models: ours is loaded again" ours_loaded
nfs_server_start /export
