#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): a failed accept
# leaks no more with ours than with the stock rpcrdma. On the kernels
# whose svc_rdma_accept() error path keeps the transport's first
# reference (upstream 6.1 to 7.1.5: ../shared/KERNEL-NOTES.md,
# docs/design.md "A stock bug this module keeps"), a server connection
# that fails after its QP exists leaves its CQs and PD on the device.
# Per module, stock first: rpcrdma loaded alone, the server's next
# Receive post failed (inline_limit.ko fail_post_recv=1) so that
# svc_rdma_accept() takes its errout:, the mount tried once, then nfsd
# stopped and rpcrdma unloaded, so that whatever is still on rxe0 was
# left by the failed accept. Counted in the device's resource summary
# (counts only: the owner name of a leaked CQ is read from the module
# that made it, and faults once that module is gone). Ours must leave no
# more PDs, CQs or QPs than stock. Leaves ours loaded and serving.
# Run it after the phases that delete rxe0 (models): a device with
# leaked objects WARNs when it is deleted.

# "PDS CQS QPS" of rxe0, from `rdma res show`'s summary; fails when
# the summary has no line for rxe0 (so that a format it does not know
# cannot read as 0 and 0)
al_counts() {
	rdma res show 2>/dev/null | awk '$2 == "rxe0:" {
		for (i = 3; i < NF; i += 2) v[$i] = $(i + 1)
		printf "%d %d %d\n", v["pd"], v["cq"], v["qp"]; found = 1 }
		END { exit !found }'
}

declare -A AL=()
al_p=/sys/module/inline_limit/parameters
for al_mod in stock ours; do
	nfs_server_stop
	conns_gone || true
	if [ -d /sys/module/rpcrdma ]; then unload_rpcrdma; fi
	if [ -d /sys/module/inline_limit ]; then rmmod inline_limit; fi
	al_before=$(al_counts) || al_before=
	if ! load_rpcrdma_of "$al_mod"; then
		check "accept leak: the $al_mod rpcrdma loads" false
		continue
	fi
	insmod "$GUEST_MODULES/inline_limit.ko" fail_post_recv=1
	nfs_server_start /export
	al_rc=0
	timeout 120 mount -t nfs -o "vers=3,proto=rdma,port=$NFS_RDMA_PORT,retry=0" \
		"$NFS_SERVER:$NFS_EXPORT" /mnt 2>/tmp/acceptleak.err || al_rc=$?
	if mountpoint -q /mnt; then umount /mnt; fi
	check "accept leak, $al_mod: one server Receive post failed, after its QP was created" \
		test "$(cat "$al_p/recv_failed")" = 1 -a "$(cat "$al_p/created")" -ge 2
	nfs_server_stop
	conns_gone || true
	check "accept leak, $al_mod: rpcrdma unloads after the failed accept" unload_rpcrdma
	rmmod inline_limit
	# Both counts or none: a summary missing after the round must not
	# read as 0, which would make ours' growth negative and pass
	if al_after=$(al_counts) && [ -n "$al_before" ]; then
		read -ra al_b <<<"$al_before"
		read -ra al_a <<<"$al_after"
		AL[$al_mod]="$((al_a[0] - al_b[0])) $((al_a[1] - al_b[1])) $((al_a[2] - al_b[2]))"
	else
		check "accept leak, $al_mod: rdma res show has a summary line for rxe0 before and after the round" false
	fi
	log "accept leak: $al_mod: mount exited $al_rc; left on rxe0 once rpcrdma was unloaded (PDs CQs QPs): ${AL[$al_mod]:-?} (before the round: $al_before)"
done
log "accept leak: PDs CQs QPs left by one failed accept: stock ${AL[stock]:-?}, ours ${AL[ours]:-?}"
# al_no_more: each of ours' counts (PDs, CQs, QPs left) is at most stock's
al_no_more() {
	local -a o s
	read -ra o <<<"${AL[ours]:-}"
	read -ra s <<<"${AL[stock]:-}"
	[ "${#o[@]}" = 3 ] && [ "${#s[@]}" = 3 ] &&
		[ "${o[0]}" -le "${s[0]}" ] && [ "${o[1]}" -le "${s[1]}" ] && [ "${o[2]}" -le "${s[2]}" ]
}
check "accept leak: ours leaves no more PDs, CQs and QPs than stock (PDs CQs QPs: ours ${AL[ours]:-?}, stock ${AL[stock]:-?})" \
	al_no_more
check "accept leak: ours loads again" load_rpcrdma_of ours
nfs_server_start /export
nfs_mount 3 /mnt
check "accept leak: then data compares equal" data_roundtrip /mnt 1
nfs_umount /mnt
conns_gone || true
