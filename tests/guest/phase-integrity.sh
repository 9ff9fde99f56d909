#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): NFSv3 and NFSv4.1 over
# soft RoCE with rpcrdma-inline at inline_size=256. Per version: GETATTR
# Replies (v3; v4.1's exceed 256 bytes) and Calls, WRITE Replies, small
# WRITE Calls and 4 KiB WRITE Calls (behind the REG_MR of their Read
# chunk) go inline; READ Replies (after their data) by reference, as
# "chunks"; then the integrity workload. The debugfs counters must agree
# with the tracepoint and with the Sends the driver saw, and the
# tracepoint's Calls behind registrations with the driver's.

# The workload's size: smaller on the debug kernel, which moves tens of
# KiB/s under TCG
INTEGRITY_MIB=${INTEGRITY_MIB:-8}
INTEGRITY_FILES=${INTEGRITY_FILES:-200}

delta() { # SIDE KEY BEFORE: the counter's growth since BEFORE
	echo $(($(conn_field "$1" "$2") - $3))
}

reg_sends() { # inline|byref: the driver's Sends behind a REG_MR
	cat "/sys/module/inline_limit/parameters/sends_reg_$1"
}

for vers in 3 4.1; do
	t=$SECONDS
	insmod "$GUEST_MODULES/inline_limit.ko"
	hist_start
	declare -A sz=([server]="$(side_sends server)" [client]="$(side_sends client)")
	# actimeo=0: every stat of the directory (never delegated) is a GETATTR
	nfs_mount "$vers" /mnt actimeo=0
	check "vers=$vers: mountstats shows proto=rdma" check_proto_rdma /mnt
	check "vers=$vers: 256 bytes granted on rxe, both sides" \
		test "$(conn_field server max) $(conn_field client max)" = "256 256"
	head -c 65536 /dev/urandom >/tmp/w
	cp /tmp/w /mnt/meta
	sync

	si=$(conn_field server inline) sb=$(conn_field server byref)
	ci=$(conn_field client inline) cb=$(conn_field client byref)
	for _ in $(seq 50); do stat /mnt >/dev/null; done
	log "vers=$vers: 50 GETATTRs: server +$(delta server inline "$si") inline +$(delta server byref "$sb") byref, client +$(delta client inline "$ci") inline +$(delta client byref "$cb") byref"
	# v3: every stat is a GETATTR, small both ways. v4.1: only logged. A
	# GETATTR compound's Reply for a directory is over 256 bytes, so by
	# reference as the size rule says (6.1, 6.12), and the 7.3 client
	# answered 49 of the 50 stats without any RPC.
	if [ "$vers" = 3 ]; then
		check "vers=$vers: GETATTR Replies went inline" test "$(delta server inline "$si")" -ge 50
		check "vers=$vers: no metadata Reply went by reference" test "$(delta server byref "$sb")" -eq 0
		check "vers=$vers: GETATTR Calls went inline" test "$(delta client inline "$ci")" -ge 50
	fi

	si=$(conn_field server inline) ci=$(conn_field client inline) cb=$(conn_field client byref)
	ri=$(reg_sends inline) rb=$(reg_sends byref) cl=$(conn_field client large)
	dd if=/tmp/w of=/mnt/w bs=4k count=16 oflag=direct status=none
	log "vers=$vers: 16 4-KiB WRITEs: server +$(delta server inline "$si") inline, client +$(delta client inline "$ci") inline +$(delta client byref "$cb") byref; the driver's Sends behind a REG_MR: +$(($(reg_sends inline) - ri)) inline +$(($(reg_sends byref) - rb)) byref"
	check "vers=$vers: WRITE Replies went inline" test "$(delta server inline "$si")" -ge 16
	check "vers=$vers: 4 KiB WRITE Calls went inline" test "$(delta client inline "$ci")" -ge 16
	check "vers=$vers: ... the driver saw 16 of them behind a REG_MR, with IB_SEND_INLINE" \
		test $(($(reg_sends inline) - ri)) -ge 16
	# (NFSv4.1 adds a Call now and then whose compound is over 256 bytes)
	check "vers=$vers: ... any behind a REG_MR without it was over max (large)" \
		test $(($(reg_sends byref) - rb)) -le "$(delta client large "$cl")"

	sb=$(conn_field server byref) sc=$(conn_field server chunks)
	dd if=/mnt/w of=/tmp/r bs=4k count=16 iflag=direct status=none
	log "vers=$vers: 16 4-KiB READs: server +$(delta server byref "$sb") byref, +$(delta server chunks "$sc") chunks"
	check "vers=$vers: READ Replies, after their data, went by reference" test "$(delta server byref "$sb")" -ge 16
	check "vers=$vers: ... counted as behind chunk data (chunks)" test "$(delta server chunks "$sc")" -ge 16
	check "vers=$vers: 4 KiB blocks read back equal" cmp -n 65536 /tmp/w /tmp/r

	ci=$(conn_field client inline)
	head -c 256 /dev/urandom >/tmp/small
	dd if=/tmp/small of=/mnt/small bs=16 count=16 oflag=direct status=none
	log "vers=$vers: 16 16-byte WRITEs: client +$(delta client inline "$ci") inline"
	check "vers=$vers: small WRITE Calls went inline" test "$(delta client inline "$ci")" -ge 16
	check "vers=$vers: small writes landed equal" cmp /tmp/small /export/small
	rm -f /mnt/meta /mnt/w /mnt/small

	check "vers=$vers: integrity workload ($INTEGRITY_MIB MiB, $INTEGRITY_FILES files) compares equal" \
		integrity_workload /mnt /export "$INTEGRITY_MIB" "$INTEGRITY_FILES"
	read -r _ s_in s_br c_in c_br _ t_sin t_sbr t_cin t_cbr _ d_in d_br _ tr_in tr_br dr_in dr_br <<<"$(counts_settled)"
	log "vers=$vers: Sends in all: server $s_in inline, $s_br by reference; client $c_in inline, $c_br by reference"
	log "vers=$vers: tracepoint: server $t_sin/$t_sbr, client $t_cin/$t_cbr; driver: $d_in inline, $d_br by reference"
	check "vers=$vers: the tracepoint agrees with the server's counters" \
		test "$t_sin $t_sbr" = "$s_in $s_br"
	check "vers=$vers: the tracepoint agrees with the client's counters" \
		test "$t_cin $t_cbr" = "$c_in $c_br"
	check "vers=$vers: the driver saw as many inline Sends" test "$d_in" = $((s_in + c_in))
	check "vers=$vers: the driver saw as many Sends by reference" test "$d_br" = $((s_br + c_br))
	log "vers=$vers: Calls behind REG_MRs: tracepoint $tr_in inline, $tr_br by reference; driver $dr_in, $dr_br"
	check "vers=$vers: the driver saw the Calls behind REG_MRs that the tracepoint did" \
		test "$dr_in $dr_br" = "$tr_in $tr_br"
	for side in server client; do
		log "vers=$vers: $side: $(conn_line "$side" | cut -d' ' -f8-)"
		check "vers=$vers: $side: Sends by reason add up" conn_sums_agree "$side"
		check "vers=$vers: $side: its Sends by size add up" sizes_agree "$side" "${sz[$side]}"
	done
	# Asking inline data must not enlarge svcrdma's chunk WRs: rxe reports
	# the room it makes as more send SGEs, which rdma_rw would use
	il=/sys/module/inline_limit/parameters
	log "vers=$vers: RDMA Writes and Reads: $(cat "$il/rw_wrs") WRs, at most $(cat "$il/rw_sge_max") SGEs, $(cat "$il/rw_sge_over") over their QP's ask"
	check "vers=$vers: chunk RDMA Writes and Reads were posted" test "$(cat "$il/rw_wrs")" -gt 0
	check "vers=$vers: ... none with more SGEs than its QP asked for" test "$(cat "$il/rw_sge_over")" = 0
	hist_stop
	# rpcrdma-inline report and status, once, with both sides' connections
	# open: every item of the report, JSON that parses, status's exit code
	if [ "$vers" = 3 ]; then
		R=/src/scripts/rpcrdma-inline
		r_rc=0
		"$R" report >/tmp/report.txt 2>&1 || r_rc=$?
		# (no head: a pipe cut short would fail the suite under pipefail)
		grep -vE '^(log|dkms|parameter|sends|memo)' /tmp/report.txt | sed -n '1,40s/^/# report: /p' || true
		check "report: exits 0 ($r_rc)" test "$r_rc" = 0
		for k in report root module version srcversion hooks tested stale why-not-ours load-failure kernel \
			installed-ours installed-stock parameter.inline_size distribution kernel-package cpu ofed dkms \
			rdma-device device memo sends log; do
			check "report: a '$k:' line" grep -q "^$k: " /tmp/report.txt
		done
		check "report: root yes, module ours, stale no, ofed no (in that order)" \
			test "$(sed -n 's/^\(module\|root\|stale\|ofed\): //p' /tmp/report.txt | paste -sd ' ')" = "yes ours no no"
		check "report: rxe's port: driver rxe, policy on, link layer Ethernet, an MTU" \
			grep -qE '^rdma-device: name=[^ ]+ port=1 driver=rxe .*policy=on .*link_layer="Ethernet" .* mtu=[0-9]+ ' /tmp/report.txt
		check "report: the client connection serves /mnt, vers=3" \
			grep -qE '^connection: client .* mount="/mnt" vers=3 rsize=[0-9]+ wsize=[0-9]+$' /tmp/report.txt
		check "report: the server connection, served by nfsd" grep -qE '^connection: server .* served=nfsd$' /tmp/report.txt
		check "report: Sends by size, both sides" \
			test "$(grep -cE '^sends: (client|server) how=inline ' /tmp/report.txt)" = 2
		# (Debian 13's release names hold a '+', literal here)
		kver_re=$(uname -r | sed 's/[.+]/\\&/g')
		check "report: DKMS has ours installed for $(uname -r)" \
			grep -qE "^dkms: kernel=$kver_re version=[^ ]+ arch=[^ ]+ state=\"installed" /tmp/report.txt
		check "report: the kernel log's rpcrdma lines" grep -qE '^log: .*(rpcrdma|svcrdma|xprtrdma)' /tmp/report.txt
		r_rc=0
		"$R" report --json >/tmp/report.json 2>&1 || r_rc=$?
		check "report --json: exits 0, parses, same connections and module as the text" \
			python3 -c 'import json, sys
d = json.load(open("/tmp/report.json"))
conns = [l for l in open("/tmp/report.txt") if l.startswith("connection: ")]
assert sys.argv[1] == "0" and d["module"] == "ours" and len(d["connection"]) == len(conns) >= 2, d
assert d["rdma-device"][0]["driver"] == "rxe" and d["parameter"]["inline_size"] == 256' "$r_rc"
		r_rc=0
		"$R" -p status >/dev/null 2>&1 || r_rc=$?
		check "status exits 0 with ours loaded ($r_rc)" test "$r_rc" = 0
		r_rc=0
		"$R" -j status >/tmp/status.json 2>&1 || r_rc=$?
		check "status -j: exits 0 and parses" \
			python3 -c 'import json, sys; d = json.load(open("/tmp/status.json")); assert sys.argv[1] == "0" and d["module"] == "ours"' "$r_rc"
	fi
	nfs_umount /mnt
	check "vers=$vers: connections leave the list" conns_gone
	rmmod inline_limit
	log "vers=$vers took $((SECONDS - t)) s"
done
