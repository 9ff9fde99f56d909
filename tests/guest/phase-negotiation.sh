#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): the size negotiation
# on rxe0 wrapped by tests/modules/inline_limit.ko, which refuses inline
# data above a limit or reports less than it grants. rxe0 is deleted and
# added again before each row, so that the per-device memory starts
# empty: each side probes on its own (a memo is kept per side and QP
# shape, so one side's never lowers the other's), and a second mount's
# client takes one attempt. (Other drivers' known limits and the
# per-driver policy are in phase-drivers.sh.)

# name limit report | expected: asked, max (bytes that may go inline: the
# smaller of asked and what the device reported), attempts of the first
# connection: the first creation of a side and shape asks for no inline
# data (what the stock module's QP gets, the least ours keeps; it
# succeeds and is destroyed, and it also shows that a later refusal is
# about the size), then the sizes, so a refusing device takes one more
# attempt than its sizes and refuses attempts - 2 per side
while read -r name limit report asked granted attempts; do
	rdma link delete rxe0
	rdma link add rxe0 type rxe netdev dummy0
	insmod "$GUEST_MODULES/inline_limit.ko" limit="$limit" report="$report"
	nfs_mount 3 /mnt
	log "$name: $(tr '\n' ';' <"$CONNS")"
	check "$name (limit $limit): client asked $asked, may post $granted inline, after $attempts attempts" \
		test "$(conn_field client asked) $(conn_field client max) $(conn_field client attempts)" = "$asked $granted $attempts"
	nref=$((attempts > 1 ? 2 * (attempts - 2) : 0))
	check "$name: the device refused $nref QP creations, each side's probe" \
		test "$(cat /sys/module/inline_limit/parameters/refused)" = "$nref"
	check "$name: the server's connection probed on its own: $attempts attempts" \
		test "$(conn_field server asked) $(conn_field server max) $(conn_field server attempts)" = "$asked $granted $attempts"
	check "$name: data compares equal" data_roundtrip /mnt 1
	if [ "$granted" = 0 ]; then
		check "$name: no inline Send" test "$(driver_sends inline)" = 0
	fi
	read -r _ s_in s_br c_in c_br _ _ _ _ _ _ d_in d_br _ <<<"$(counts_settled)"
	log "$name: Sends: server $s_in/$s_br, client $c_in/$c_br (inline/byref); driver $d_in/$d_br"
	check "$name: the driver saw the Sends our counters report" \
		test "$d_in $d_br" = "$((s_in + c_in)) $((s_br + c_br))"
	nfs_umount /mnt
	conns_gone || true
	# The client's memo: a second mount's client takes one attempt
	nfs_mount 3 /mnt
	check "$name: a second mount's client asked $asked at its first attempt" \
		test "$(conn_field client asked) $(conn_field client attempts)" = "$asked 1"
	nfs_umount /mnt
	conns_gone || true
	rmmod inline_limit
done <<'ROWS'
rxe-101 101 0 96 96 12
rxe-0 0 0 0 0 18
reports-less 1024 64 256 64 2
ROWS

# A device that refuses every RC QP creation, even one asking for no
# inline data (inline_limit.ko refuse_all=1): with no memo, the client's
# first creation asks for none, as the stock module's; that failing, the
# error is returned at once, as from the stock module, and logged,
# remembering nothing; the mount fails at once (the mount's NULL ping is
# soft and fails on a connect error; retry=0 stops mount.nfs from
# retrying). Nothing stays listed, and once the device is unwrapped a
# mount works. rxe0 is added again first, as for the rows, so that no
# memo shortens the negotiation.
rdma link delete rxe0
rdma link add rxe0 type rxe netdev dummy0
ra_want=$(cat /sys/module/rpcrdma/parameters/inline_size)
# One creation per connect: none asked
ra_tries=1
insmod "$GUEST_MODULES/inline_limit.ko" refuse_all=1
ra_t=$SECONDS ra_rc=0
timeout 120 mount -t nfs -o "vers=3,proto=rdma,port=$NFS_RDMA_PORT,retry=0" \
	"$NFS_SERVER:$NFS_EXPORT" /mnt 2>/tmp/refuse-all.err || ra_rc=$?
log "refuse_all: mount exited $ra_rc after $((SECONDS - ra_t)) s: $(tr '\n' ' ' </tmp/refuse-all.err)"
check "refuse_all: the mount fails, and not by timing out (exit $ra_rc)" \
	test "$ra_rc" != 0 -a "$ra_rc" != 124
if mountpoint -q /mnt; then
	check "refuse_all: nothing is mounted on /mnt" false
	umount /mnt
fi
ra_refused=$(cat /sys/module/inline_limit/parameters/refused)
log "refuse_all: QP creations refused $ra_refused, passed $(cat /sys/module/inline_limit/parameters/created), asks $(cat /sys/module/inline_limit/parameters/asks)"
check "refuse_all: the device refused $ra_refused QP creations, $ra_tries per connect (none asked)" \
	test "$ra_refused" -ge "$ra_tries" -a $((ra_refused % ra_tries)) = 0
check "refuse_all: every creation asked no inline data" \
	bash -c "! tr ',' '\n' </sys/module/inline_limit/parameters/asks | grep -qv '^0$'"
check "refuse_all: nothing is remembered for rxe0" \
	bash -c "! grep -q '^rxe0 ' /sys/kernel/debug/rpcrdma_inline/memos"
check "refuse_all: no connection stays listed" conns_gone
ra_line="rpcrdma: rxe0: client QP creation failed asking no inline data, as the stock module's would (attempt 1): error -22"
log "refuse_all: dmesg: $(dmesg | grep 'QP creation failed' | tail -n 1)"
check "refuse_all: the kernel log says why: $ra_line" \
	grep -qF "$ra_line" <<<"$(dmesg)"
check "refuse_all: rmmod inline_limit" rmmod inline_limit
nfs_mount 3 /mnt
check "after refuse_all: the client asked none, then $ra_want (nothing was remembered)" \
	test "$(conn_field client asked) $(conn_field client attempts)" = "$ra_want 2"
check "after refuse_all: data compares equal" data_roundtrip /mnt 1
nfs_umount /mnt
conns_gone || true
