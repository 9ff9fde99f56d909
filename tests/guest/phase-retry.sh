#!/bin/bash
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh), on every kernel: a QP
# creation that fails with an error that is no refusal of the inline data
# size (-EIO, as from firmware) is returned at once, as from the stock
# module, with no smaller ask; nothing is remembered from it; the
# connection comes up on its retry at the full size, and so does the next
# one on the device. tests/modules/inline_limit.ko fail_create=1
# fail_errno=5 fails the first RC QP creation (the client's) with -EIO
# before rxe sees it, and records every RC QP creation's ask (asks).
# rxe0 is added again first, so that no memo from earlier phases applies.

rt_p=/sys/module/inline_limit/parameters
rt_memos=/sys/kernel/debug/rpcrdma_inline/memos
rdma link delete rxe0
rdma link add rxe0 type rxe netdev dummy0
rt_want=$(cat /sys/module/rpcrdma/parameters/inline_size)
insmod "$GUEST_MODULES/inline_limit.ko" fail_create=1 fail_errno=5

# Every ask recorded is the full size (none smaller), and there are at
# least $1 of them
rt_asks_full() {
	local a n=0
	for a in $(tr ',' ' ' <"$rt_p/asks"); do
		[ "$a" = "$rt_want" ] || return 1
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
check "retry: the failing creation asked the full size, $rt_want, and no smaller ask followed it" \
	rt_asks_full 1
rt_line="rpcrdma: rxe0: client QP creation failed asking $rt_want bytes of inline data (attempt 1): error -5, not a refusal of the size, so not retried smaller"
check "retry: the kernel log says: $rt_line" grep -qF "$rt_line" <<<"$(dmesg)"
if mountpoint -q /mnt; then
	log "retry: the kernel connected again by itself: the mount is up"
else
	check "retry: the mount failed, and nothing is remembered from its run" \
		bash -c "! grep -q '^rxe0 ' $rt_memos"
	nfs_mount 3 /mnt
fi
log "retry: $(tr '\n' ';' <"$CONNS") memos: $(tr '\n' ';' <"$rt_memos")"
check "retry: the client's connection came up at the full size, at its first attempt" \
	test "$(conn_field client asked) $(conn_field client attempts)" = "$rt_want 1"
check "retry: the server's too" \
	test "$(conn_field server asked) $(conn_field server attempts)" = "$rt_want 1"
check "retry: max_asked is the full size, $rt_want" test "$(cat "$rt_p/max_asked")" = "$rt_want"
check "retry: every ask so far was the full size (the failed one, the retry, the server's)" \
	rt_asks_full 3
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
check "retry: still no ask below the full size" rt_asks_full 5
nfs_umount /mnt
conns_gone || true
check "retry: rmmod inline_limit" rmmod inline_limit
