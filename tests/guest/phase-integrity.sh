#!/bin/bash
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): NFSv3 and NFSv4.1 over
# soft RoCE with rpcrdma-inline, the integrity workload on each.

# NFS over soft RoCE
for vers in 3 4.1; do
	t=$SECONDS
	nfs_mount "$vers" /mnt
	check "vers=$vers: mountstats shows proto=rdma" check_proto_rdma /mnt
	check "vers=$vers: integrity workload compares equal" integrity_workload /mnt /export
	log "vers=$vers: $(tr '\n' ';' <"$CONNS")"
	nfs_umount /mnt
	log "vers=$vers took $((SECONDS - t)) s"
done

