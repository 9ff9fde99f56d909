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

# "pd=N cq=N qp=N" of rxe0, from `rdma res show`'s summary
al_counts() {
	rdma res show 2>/dev/null | awk '$2 == "rxe0:" {
		for (i = 3; i < NF; i += 2) v[$i] = $(i + 1)
		printf "pd=%d cq=%d qp=%d", v["pd"], v["cq"], v["qp"] }'
}

# al_delta BEFORE AFTER: "pd=N cq=N qp=N" grown from BEFORE to AFTER
al_delta() {
	local -A b=() a=()
	local kv
	for kv in $1; do b[${kv%=*}]=${kv#*=}; done
	for kv in $2; do a[${kv%=*}]=${kv#*=}; done
	echo "pd=$((a[pd] - b[pd])) cq=$((a[cq] - b[cq])) qp=$((a[qp] - b[qp]))"
}

declare -A AL=()
al_p=/sys/module/inline_limit/parameters
for al_mod in stock ours; do
	nfs_server_stop
	conns_gone || true
	if [ -d /sys/module/rpcrdma ]; then unload_rpcrdma; fi
	if [ -d /sys/module/inline_limit ]; then rmmod inline_limit; fi
	al_before=$(al_counts)
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
	AL[$al_mod]=$(al_delta "$al_before" "$(al_counts)")
	log "accept leak: $al_mod: mount exited $al_rc; left on rxe0 once rpcrdma was unloaded: ${AL[$al_mod]} (before the round: $al_before)"
done
log "accept leak: left by one failed accept: stock ${AL[stock]:-?}, ours ${AL[ours]:-?}"
# al_no_more: each of ours' counts is at most stock's
al_no_more() {
	local kv s=" ${AL[stock]} "
	for kv in ${AL[ours]}; do
		[[ $s =~ \ ${kv%=*}=(-?[0-9]+)\  ]] || return 1
		[ "${kv#*=}" -le "${BASH_REMATCH[1]}" ] || return 1
	done
}
check "accept leak: ours leaves no more PDs, CQs and QPs than stock (ours ${AL[ours]:-?}, stock ${AL[stock]:-?})" \
	al_no_more
check "accept leak: ours loads again" load_rpcrdma_of ours
nfs_server_start /export
nfs_mount 3 /mnt
check "accept leak: then data compares equal" data_roundtrip /mnt 1
nfs_umount /mnt
conns_gone || true
