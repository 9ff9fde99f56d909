#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): svcrdma's RDMA_ERROR
# reply. tests/modules/small_reply_chunk.ko cuts the Reply chunk of one
# NFSv3 READDIRPLUS Call (its results go in a Reply chunk) to 4 bytes;
# svcrdma then fails to build the chunk's Writes (-E2BIG) and answers
# with ERR_CHUNK from svc_rdma_send_error_msg(), a 20-byte header alone
# in its Send. Where the kernel posts chunk Writes in their own
# ib_post_send() (hook 04's variants 6.1, 6.5 and 6.12-unchained), that
# error reply takes the Call's chunk lists as a Reply does: it goes by
# reference, counted as "chunks". Where Write chunks and the Reply chunk
# are chained ahead of the Send (variants 6.12 and 7), svcrdma drops the
# prepared chain and posts the error reply alone: inline. Either way our
# counts must equal the driver's, and the client must see the error.

er_t=/sys/kernel/tracing
er_ev=$er_t/events/rpcrdma_inline/rpcrdma_wqe_inline_post
er_p=/sys/module/small_reply_chunk/parameters
er_variant=$(modinfo -F rpcrdma_inline_hooks rpcrdma | tr ' ' '\n' | sed -n 's/^04-svc-post-send=//p')
case $er_variant in
6.1 | 6.5 | 6.12-unchained) er_how=chunks er_inl=byref ;;
*) er_how=inline er_inl=inline ;;
esac
log "errreply: hook 04 variant $er_variant: the error reply is expected $er_inl, how=$er_how"

insmod "$GUEST_MODULES/inline_limit.ko"
nfs_mount 3 /mnt
mkdir -p /export/er
for i in $(seq 40); do : >"/export/er/file-with-a-long-enough-name-$i"; done
insmod "$GUEST_MODULES/small_reply_chunk.ko"

# The server's Sends of exactly 20 bytes (an RDMA_ERROR ERR_CHUNK
# header; a Reply's header alone is 28) and svcrdma's own error events
echo 'side == 0 && len == 20' >"$er_ev/filter"
echo 1 >"$er_ev/enable"
echo 1 >"$er_t/events/rpcrdma/svcrdma_err_chunk/enable"
: >"$er_t/trace"
read -r _ er_si er_sb _ _ _ _ _ _ _ _ er_di er_db _ <<<"$(counts_settled)"
er_chunks=$(conn_field server chunks)

echo 1 >"$er_p/shrink"
er_rc=0
ls /mnt/er >/tmp/er.out 2>/tmp/er.err || er_rc=$?
log "errreply: ls of 40 files with the Reply chunk cut: exit $er_rc, $(wc -l </tmp/er.out) names, $(tr '\n' ' ' </tmp/er.err)"
check "errreply: one Reply chunk was cut" test "$(cat "$er_p/shrunk")" = 1
check "errreply: the client saw the error (ls failed with EIO)" \
	grep -q 'Input/output error' /tmp/er.err
echo 0 >"$er_t/events/rpcrdma/svcrdma_err_chunk/enable"
echo 0 >"$er_ev/enable"
echo 0 >"$er_ev/filter"
log "errreply: trace: $(grep -v '^#' "$er_t/trace" | sed 's/.*: \(svcrdma_err_chunk\|rpcrdma_wqe_inline_post\):/\1:/' | tr '\n' ';')"
check "errreply: svcrdma sent one ERR_CHUNK" \
	test "$(grep -c 'svcrdma_err_chunk:' "$er_t/trace")" = 1
check "errreply: one 20-byte server Send, $er_inl, how=$er_how" \
	test "$(grep 'rpcrdma_wqe_inline_post:' "$er_t/trace" | grep -c " $er_inl how=$er_how num_sge=1 len=20 ")" = 1
er_now=$(counts_settled)
read -r _ si sb _ _ _ _ _ _ _ _ di db _ <<<"$er_now"
log "errreply: server Sends since: +$((si - er_si)) inline +$((sb - er_sb)) byref; the driver's (both sides) +$((di - er_di)) inline +$((db - er_db)) byref"
# shellcheck disable=SC2086 # the reading is a list of fields
check "errreply: our counts still equal the driver's ($er_now)" counts_agree $er_now
if [ "$er_how" = chunks ]; then
	check "errreply: counted as chunks on the server's connection" \
		test "$(conn_field server chunks)" = $((er_chunks + 1))
fi
check "errreply: the connection's reasons still add up" conn_sums_agree server

# The next READDIRPLUS, its Reply chunk whole, lists every file
: >"$er_t/trace"
check "errreply: then a listing finds all 40 files" test "$(find /mnt/er -type f | wc -l)" = 40
rmmod small_reply_chunk
nfs_umount /mnt
conns_gone || true
rmmod inline_limit
rm -rf /export/er
