#!/bin/bash
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): the seed's vendor
# table, reproduced on rxe0 wrapped by tests/modules/inline_limit.ko, which
# refuses inline data above a limit and reports a chosen vendor ID. rxe0 is
# deleted and added again before each row, so that the per-device memory
# starts empty: the first connection (the client's) probes, the second
# (the server's) takes one attempt.

# The vendor table, on rxe0 wrapped by inline_limit.ko
# name vendor limit report | expected: asked, max (bytes that may go
# inline: the smaller of asked and what the device reported), attempts of
# the first connection
while read -r name vendor limit report asked granted attempts; do
	rdma link delete rxe0
	rdma link add rxe0 type rxe netdev dummy0
	insmod "$GUEST_MODULES/inline_limit.ko" limit="$limit" vendor_id="$vendor" report="$report"
	nfs_mount 3 /mnt
	log "$name: $(tr '\n' ';' <"$CONNS")"
	check "$name (limit $limit): client asked $asked, may post $granted inline, after $attempts attempts" \
		test "$(conn_field client asked) $(conn_field client max) $(conn_field client attempts)" = "$asked $granted $attempts"
	check "$name: the device refused $((attempts - 1)) QP creations" \
		test "$(cat /sys/module/inline_limit/parameters/refused)" = $((attempts - 1))
	check "$name: the server's connection took one attempt" \
		test "$(conn_field server asked) $(conn_field server max) $(conn_field server attempts)" = "$asked $granted 1"
	check "$name: data compares equal" data_roundtrip /mnt 1
	if [ "$granted" = 0 ]; then
		check "$name: no inline Send" test "$(driver_sends inline)" = 0
	fi
	read -r _ s_in s_br c_in c_br _ _ _ _ _ _ d_in d_br <<<"$(counts_settled)"
	log "$name: Sends: server $s_in/$s_br, client $c_in/$c_br (inline/byref); driver $d_in/$d_br"
	check "$name: the driver saw the Sends our counters report" \
		test "$d_in $d_br" = "$((s_in + c_in)) $((s_br + c_br))"
	nfs_umount /mnt
	conns_gone || true
	rmmod inline_limit
done <<'ROWS'
Intel-gen3 0x8086 216 0 216 216 1
Intel-gen2 0x8086 101 0 101 101 2
Intel-gen1 0x8086 48 0 48 48 3
Alibaba 0x1ded 96 0 96 96 1
rxe-101 0 101 0 96 96 11
rxe-0 0 0 0 0 0 17
reports-less 0 1024 64 256 64 1
ROWS
