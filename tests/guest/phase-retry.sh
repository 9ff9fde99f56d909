#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh), on every kernel: a QP
# creation that fails with an error that is no refusal of the inline data
# size (-EIO, as from firmware) is returned at once, as from the stock
# module, with no smaller ask; nothing is remembered from it; the
# connection comes up on its retry, and the next one on the device at the
# full size at once. tests/modules/inline_limit.ko fail_create=1
# fail_errno=5 fails the first RC QP creation (the client's) with -EIO
# before rxe sees it, and records every RC QP creation's ask (asks).
# rxe0 is added again first, so that no memo from earlier phases applies:
# the first creation of each side and shape asks for no inline data (what
# the stock module's QP gets, the least ours keeps), then the full size.

rt_p=/sys/module/inline_limit/parameters
rt_memos=/sys/kernel/debug/rpcrdma_inline/memos
rdma link delete rxe0
rdma link add rxe0 type rxe netdev dummy0
rt_want=$(cat /sys/module/rpcrdma/parameters/inline_size)
insmod "$GUEST_MODULES/inline_limit.ko" fail_create=1 fail_errno=5

# Every ask recorded is 0 or the full size (none in between), and there
# are at least $1 of them
rt_asks_full() {
	local a n=0
	for a in $(tr ',' ' ' <"$rt_p/asks"); do
		[ "$a" = "$rt_want" ] || [ "$a" = 0 ] || return 1
		n=$((n + 1))
	done
	[ "$n" -ge "$1" ]
}

# The mount's NULL ping is soft, so the mount fails on the connect error
# (retry=0: mount.nfs does not try again); should the kernel connect
# again by itself, the mount comes up instead. Either way the connection
# that comes up is the retry.
rt_rc=0
timeout 120 mount -t nfs -o "vers=3,proto=rdma,port=$NFS_RDMA_PORT,retry=0" \
	"$NFS_SERVER:$NFS_EXPORT" /mnt 2>/tmp/retry.err || rt_rc=$?
log "retry: mount with the first creation failing -EIO exited $rt_rc: $(tr '\n' ' ' </tmp/retry.err)"
log "retry: asks $(cat "$rt_p/asks"), failed $(cat "$rt_p/failed"), refused $(cat "$rt_p/refused"), created $(cat "$rt_p/created"), max_asked $(cat "$rt_p/max_asked")"
check "retry: one creation failed with -EIO" test "$(cat "$rt_p/failed")" = 1
check "retry: the failing creation asked none, as the stock module's, and no other ask came before the next connect" \
	test "$(cut -d, -f1 "$rt_p/asks")" = 0
rt_line="rpcrdma: rxe0: client QP creation failed asking no inline data, as the stock module's would (attempt 1): error -5"
check "retry: the kernel log says: $rt_line" grep -qF "$rt_line" <<<"$(dmesg)"
if mountpoint -q /mnt; then
	log "retry: the kernel connected again by itself: the mount is up"
else
	check "retry: the mount failed, and nothing is remembered from its run" \
		bash -c "! grep -q '^rxe0 ' $rt_memos"
	nfs_mount 3 /mnt
fi
log "retry: $(tr '\n' ';' <"$CONNS") memos: $(tr '\n' ';' <"$rt_memos")"
check "retry: the client's connection came up at the full size: none, then $rt_want" \
	test "$(conn_field client asked) $(conn_field client attempts)" = "$rt_want 2"
check "retry: the server's too" \
	test "$(conn_field server asked) $(conn_field server attempts)" = "$rt_want 2"
check "retry: max_asked is the full size, $rt_want" test "$(cat "$rt_p/max_asked")" = "$rt_want"
check "retry: every ask so far was none or the full size (the failed one, the retry's two, the server's two)" \
	rt_asks_full 5
check "retry: the device refused nothing" test "$(cat "$rt_p/refused")" = 0
check "retry: data compares equal" data_roundtrip /mnt 1
check "retry: the client's memo on rxe0 is the full size" \
	grep -q "^rxe0 side=client .* want=$rt_want accepted=$rt_want " "$rt_memos"
nfs_umount /mnt
conns_gone || true

# The next connection on the device: the full size at the first attempt
nfs_mount 3 /mnt
log "retry, next connection: $(tr '\n' ';' <"$CONNS") asks $(cat "$rt_p/asks")"
check "retry: the next connection on rxe0 asks the full size, at its first attempt" \
	test "$(conn_field client asked) $(conn_field client attempts)" = "$rt_want 1"
check "retry: still no ask between none and the full size" rt_asks_full 6
nfs_umount /mnt
conns_gone || true
check "retry: rmmod inline_limit" rmmod inline_limit

# An error of the driver's refusal kind that is not about the size:
# -EINVAL at every size (as from ib_modify_qp() to INIT, or caps out of
# range), then -ENOMEM at every size on a device that says it is mlx5
# (whose -ENOMEM may be a refusal: rpcrdma_wqe_inline_retry()). With no
# memo, each connect's first creation asks for no inline data, as the
# stock module's: it fails, and that ends it, with no other ask, nothing
# remembered, the error logged.
# rt_zeros: the asks recorded are all 0, at least one
rt_zeros() {
	local a i=0
	for a in $(tr ',' ' ' <"$rt_p/asks"); do
		[ "$a" = 0 ] || return 1
		i=$((i + 1))
	done
	[ "$i" -ge 1 ]
}
for rt_case in "EINVAL 22 -" "ENOMEM 12 1"; do
	read -r rt_name rt_errno rt_id <<<"$rt_case"
	rdma link delete rxe0
	rdma link add rxe0 type rxe netdev dummy0
	rt_args=(fail_create=100000 "fail_errno=$rt_errno")
	[ "$rt_id" = - ] || rt_args+=("driver_id=$rt_id")
	insmod "$GUEST_MODULES/inline_limit.ko" "${rt_args[@]}"
	rt_rc=0
	timeout 120 mount -t nfs -o "vers=3,proto=rdma,port=$NFS_RDMA_PORT,retry=0" \
		"$NFS_SERVER:$NFS_EXPORT" /mnt 2>/tmp/retry.err || rt_rc=$?
	log "retry $rt_name at every size: mount exited $rt_rc; asks $(cat "$rt_p/asks"), failed $(cat "$rt_p/failed")"
	check "retry $rt_name at every size: the mount fails, not by timing out (exit $rt_rc)" \
		test "$rt_rc" != 0 -a "$rt_rc" != 124
	mountpoint -q /mnt && umount /mnt
	check "retry $rt_name at every size: each connect asked 0, once, and nothing else" rt_zeros
	check "retry $rt_name at every size: one failed creation per connect" \
		test "$(cat "$rt_p/failed")" = "$(tr ',' '\n' <"$rt_p/asks" | grep -c .)"
	rt_line="rpcrdma: rxe0: client QP creation failed asking no inline data, as the stock module's would (attempt 1): error -$rt_errno"
	check "retry $rt_name at every size: the kernel log says: $rt_line" \
		grep -qF "$rt_line" <<<"$(dmesg)"
	check "retry $rt_name at every size: nothing is remembered for rxe0" \
		bash -c "! grep -q '^rxe0 ' $rt_memos"
	check "retry $rt_name at every size: no connection stays listed" conns_gone
	check "retry $rt_name: rmmod inline_limit" rmmod inline_limit
done
# The accept error path after the server's QP exists: the next server
# Receive post fails (inline_limit.ko fail_post_recv=1), so
# svc_rdma_accept() takes errout:. The connection it made must leave
# 'connections' whatever errout: does with the birth reference (hook 03):
# only the live connections stay listed.
rdma link delete rxe0
rdma link add rxe0 type rxe netdev dummy0
insmod "$GUEST_MODULES/inline_limit.ko" fail_post_recv=1
rt_rc=0
timeout 120 mount -t nfs -o "vers=3,proto=rdma,port=$NFS_RDMA_PORT,retry=0" \
	"$NFS_SERVER:$NFS_EXPORT" /mnt 2>/tmp/retry.err || rt_rc=$?
log "accept error: mount exited $rt_rc; server Receive posts failed $(cat "$rt_p/recv_failed"), QPs created $(cat "$rt_p/created"); $(tr '\n' ';' <"$CONNS")"
check "accept error: one server Receive post failed, after its QP was created" \
	test "$(cat "$rt_p/recv_failed")" = 1 -a "$(cat "$rt_p/created")" -ge 2
rt_servers() { grep -c '^server ' "$CONNS" || true; }
if mountpoint -q /mnt; then
	log "accept error: the client connected again by itself: the mount is up"
	check "accept error: one server connection listed, the live one" \
		test "$(settle rt_servers 1 80 0.25)" = 1
	nfs_umount /mnt
fi
check "accept error: no connection stays listed" conns_gone
nfs_mount 3 /mnt
check "accept error: the next mount lists one server connection" test "$(rt_servers)" = 1
check "accept error: data compares equal" data_roundtrip /mnt 1
nfs_umount /mnt
conns_gone || true
check "accept error: rmmod inline_limit" rmmod inline_limit

# A failed post: the next post of one side's Send fails before the
# device sees it (inline_limit.ko fail_post_send=1 fail_send_done=its
# Send completion handler). That side counts it as failed, under no
# other how, so that ours and the driver's counts of what was posted,
# inline and by reference, still agree; its connection closes, and the
# client's retry moves the data.
# "SI SB CI CB DI DB": both sides' Sends posted inline and by reference
# (debugfs 'sends'), and the driver's, read back to back
rt_posted() {
	echo "$(side_sends server inline) $(side_sends server byref)" \
		"$(side_sends client inline) $(side_sends client byref)" \
		"$(driver_sends inline) $(driver_sends byref)"
}
# rt_posted_agree BASE: since rt_posted printed BASE (the driver's then
# 0 0), ours posted as many inline and by reference as the driver saw
rt_posted_agree() {
	local b r _
	read -ra b <<<"$1"
	for _ in $(seq 30); do
		read -ra r <<<"$(rt_posted)"
		[ $((r[0] - b[0] + r[2] - b[2])) = "${r[4]}" ] &&
			[ $((r[1] - b[1] + r[3] - b[3])) = "${r[5]}" ] && return 0
		sleep 0.5
	done
	log "post failure: ours since the start ${r[*]} (from $1); the driver ${r[4]} ${r[5]}"
	return 1
}
for rt_side in server client; do
	case $rt_side in
	server) rt_done=svc_rdma_wc_send rt_other=client ;;
	client) rt_done=rpcrdma_wc_send rt_other=server ;;
	esac
	insmod "$GUEST_MODULES/inline_limit.ko"
	rt_base=$(rt_posted)
	rt_f0="$(side_sends "$rt_side" failed) $(side_sends "$rt_other" failed)"
	nfs_mount 3 /mnt
	echo "$rt_done" >"$rt_p/fail_send_done"
	echo 1 >"$rt_p/fail_post_send"
	check "post failure $rt_side: data compares equal across the failed post" data_roundtrip /mnt 1
	read -r rt_fs rt_fo <<<"$rt_f0"
	log "post failure $rt_side: the driver failed $(cat "$rt_p/send_failed") (inline $(cat "$rt_p/send_failed_inline")); ours failed $rt_side $(($(side_sends "$rt_side" failed) - rt_fs)), $rt_other $(($(side_sends "$rt_other" failed) - rt_fo)); connects $(connects 2>/dev/null || echo -)"
	check "post failure $rt_side: one post of a $rt_side Send failed at the device" \
		test "$(cat "$rt_p/send_failed")" = 1
	check "post failure $rt_side: our $rt_side counted one Send failed, the $rt_other none" \
		test "$(($(side_sends "$rt_side" failed) - rt_fs)) $(($(side_sends "$rt_other" failed) - rt_fo))" = "1 0"
	check "post failure $rt_side: ours and the driver agree on what was posted, inline and by reference" \
		rt_posted_agree "$rt_base"
	nfs_umount /mnt
	conns_gone || true
	check "post failure $rt_side: rmmod inline_limit" rmmod inline_limit
done

nfs_mount 3 /mnt
check "after the failures: the client asked $rt_want at its first attempt" \
	test "$(conn_field client asked) $(conn_field client attempts)" = "$rt_want 1"
check "after the failures: data compares equal" data_roundtrip /mnt 1
nfs_umount /mnt
conns_gone || true
