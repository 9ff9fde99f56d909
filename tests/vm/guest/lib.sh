#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Helpers for scripts that run inside a tests/vm guest (source this file).
# No systemd, no udev, no network device: rxe runs on a dummy netdev and the
# NFS server daemons are started by hand.
#
#   rxe_up ADDR                 rdma_rxe on dummy0 with ADDR/24 (rxe0)
#   rxe_wait_active DEV         wait for DEV's port to be ACTIVE
#   rxe_down                    remove rxe0 and dummy0
#   nfs_server_start EXPORTDIR  rpcbind, exportfs, mountd, statd, nfsdcld, nfsd
#                               with an RDMA listener on port $NFS_RDMA_PORT
#   nfs_server_stop
#   nfs_client_start            rpcbind and statd, for NFSv3 mounts of a client
#   nfs_mount VERS MOUNTPOINT [OPTS]   mount $NFS_SERVER:$NFS_EXPORT over RDMA
#   nfs_umount [MOUNTPOINT]
#   check_proto_rdma MOUNTPOINT        /proc/self/mountstats says proto=rdma
#   data_roundtrip DIR MIB             write MIB MiB with O_DIRECT 4 KiB, read back, cmp
#   check_served LABEL DIR             nfsd exports DIR, vers=3 mount on /mnt: checks
#                                      proto=rdma and a 4 MiB round trip; unmount, stop
#   check NAME COMMAND [ARGS...]       run COMMAND, print "ok N - NAME" or "not ok N - NAME"
#   tap_done                           print the plan; fail if any check failed
# Scripts using these run under `set -euo pipefail`.

NFS_RDMA_PORT=${NFS_RDMA_PORT:-20049}
NFS_EXPORT_OPTS=${NFS_EXPORT_OPTS:-rw,no_root_squash,insecure,fsid=1}
NFS_THREADS=${NFS_THREADS:-4}
NFS_SERVER=${NFS_SERVER:-}
NFS_EXPORT=${NFS_EXPORT:-}
RXE_DEV=${RXE_DEV:-rxe0}
RXE_NETDEV=${RXE_NETDEV:-dummy0}
NFS_MOUNTPOINT=''
TAP_N=0
TAP_FAILED=0

lib_log() {
	local up _
	read -r up _ </proc/uptime
	echo "lib: [$up] $*" >&2
}

# ---------------------------------------------------------------- TAP
check() { # NAME COMMAND [ARGS...]
	local name=$1
	shift
	TAP_N=$((TAP_N + 1))
	if "$@"; then
		echo "ok $TAP_N - $name"
	else
		echo "not ok $TAP_N - $name"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
	return 0
}

tap_done() {
	echo "1..$TAP_N"
	if ((TAP_FAILED > 0)); then
		echo "# $TAP_FAILED of $TAP_N checks failed"
		return 1
	fi
	echo "# all $TAP_N checks passed"
}

# ---------------------------------------------------------------- rxe
# rxe_wait_active DEV: wait up to 10 s for DEV's port to be ACTIVE
rxe_wait_active() {
	for _ in $(seq 100); do
		rdma link show "$1/1" 2>/dev/null | grep -q 'state ACTIVE' && return 0
		sleep 0.1
	done
	lib_log "$1 did not become ACTIVE: $(rdma link show "$1/1" 2>&1)"
	return 1
}

rxe_up() { # ADDR
	local addr=${1:?rxe_up ADDR}
	modprobe rdma_rxe
	# Loading dummy by itself would create dummy0 (numdummies=1).
	modprobe dummy numdummies=0 2>/dev/null || true
	ip link show "$RXE_NETDEV" >/dev/null 2>&1 || ip link add "$RXE_NETDEV" type dummy
	ip link set "$RXE_NETDEV" up
	ip addr add "$addr/24" dev "$RXE_NETDEV"
	rdma link add "$RXE_DEV" type rxe netdev "$RXE_NETDEV"
	rxe_wait_active "$RXE_DEV" || return 1
	NFS_SERVER=${NFS_SERVER:-$addr}
	lib_log "rxe up: $(rdma link show "$RXE_DEV/1")"
}

rxe_down() {
	rdma link delete "$RXE_DEV" 2>/dev/null || true
	ip link del "$RXE_NETDEV" 2>/dev/null || true
	modprobe -r rdma_rxe 2>/dev/null || true
}

# ---------------------------------------------------------------- NFS server
nfs_server_start() { # EXPORTDIR
	local dir=${1:?nfs_server_start EXPORTDIR}
	modprobe nfsd
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
	mkdir -p /run/rpcbind /var/lib/nfs/sm /var/lib/nfs/sm.bak /var/lib/nfs/v4recovery
	pidof rpcbind >/dev/null || rpcbind
	: >/etc/exports
	exportfs -o "$NFS_EXPORT_OPTS" "*:$dir"
	pidof rpc.mountd >/dev/null || rpc.mountd
	# NFSv3 mounts without nolock want statd.
	pidof rpc.statd >/dev/null || rpc.statd --no-notify
	# NFSv4 client tracking: nfsdcld (7.x has no legacy tracking and waits,
	# then logs "Unable to initialize client recovery tracking! (-110)").
	# With no clients to reclaim it lets nfsd skip the grace period.
	if command -v nfsdcld >/dev/null; then
		mkdir -p /run/rpc_pipefs /var/lib/nfs/nfsdcld
		mountpoint -q /run/rpc_pipefs || mount -t rpc_pipefs rpc_pipefs /run/rpc_pipefs
		pidof nfsdcld >/dev/null || nfsdcld
	fi
	# Short lease and grace, before the first thread starts; then end the
	# grace period at once, or NFSv4 OPENs wait out 90 s of it. With
	# NFS_KEEP_GRACE=1 (a server booted again with its state kept) the
	# grace period stays, 90 s, for the clients to reclaim in.
	echo 10 >/proc/fs/nfsd/nfsv4leasetime 2>/dev/null || true
	local grace=10
	[[ -z ${NFS_KEEP_GRACE:-} ]] || grace=90
	echo "$grace" >/proc/fs/nfsd/nfsv4gracetime 2>/dev/null || true
	rpc.nfsd "$NFS_THREADS"
	echo "rdma $NFS_RDMA_PORT" >/proc/fs/nfsd/portlist
	[[ -n ${NFS_KEEP_GRACE:-} ]] || echo Y >/proc/fs/nfsd/v4_end_grace 2>/dev/null || true
	NFS_EXPORT=$dir
	lib_log "nfsd listening on: $(tr '\n' ' ' </proc/fs/nfsd/portlist)"
}

nfs_server_stop() {
	local p
	exportfs -ua 2>/dev/null || true
	rpc.nfsd 0 2>/dev/null || true
	for p in rpc.mountd rpc.statd nfsdcld rpcbind; do
		# shellcheck disable=SC2046 # pidof prints a list of pids
		kill $(pidof "$p") 2>/dev/null || true
	done
}

# ---------------------------------------------------------------- NFS client
# nfs_client_start: what an NFSv3 mount's locking needs on a client that
# serves nothing (rpcbind, statd)
nfs_client_start() {
	mkdir -p /run/rpcbind /var/lib/nfs/sm /var/lib/nfs/sm.bak
	pidof rpcbind >/dev/null || rpcbind
	pidof rpc.statd >/dev/null || rpc.statd --no-notify
}

nfs_mount() { # VERS MOUNTPOINT [OPTS]
	local vers=${1:?nfs_mount VERS MOUNTPOINT} mp=${2:?nfs_mount VERS MOUNTPOINT} opts=${3:-}
	[[ -n $NFS_SERVER && -n $NFS_EXPORT ]] || {
		lib_log "nfs_mount: run rxe_up and nfs_server_start first (or set NFS_SERVER, NFS_EXPORT)"
		return 1
	}
	mkdir -p "$mp"
	lib_log "mounting $NFS_SERVER:$NFS_EXPORT on $mp (vers=$vers over rdma)"
	mount -t nfs -o "rdma,port=$NFS_RDMA_PORT,vers=$vers${opts:+,$opts}" "$NFS_SERVER:$NFS_EXPORT" "$mp"
	NFS_MOUNTPOINT=$mp
	lib_log "mounted $mp"
}

nfs_umount() { # [MOUNTPOINT]
	local mp=${1:-$NFS_MOUNTPOINT}
	[[ -n $mp ]] || return 0
	umount "$mp"
}

check_proto_rdma() { # MOUNTPOINT
	local mp=${1:?check_proto_rdma MOUNTPOINT}
	awk -v mp="$mp" '
		$1 == "device" { inmp = ($5 == mp && $7 == "fstype" && $8 ~ /^nfs/) }
		inmp && $1 == "opts:" && $2 ~ /(^|,)proto=rdma(,|$)/ { found = 1 }
		END { exit !found }' /proc/self/mountstats
}

data_roundtrip() { # DIR MIB: O_DIRECT 4 KiB writes then reads; compare every byte
	local dir=${1:?data_roundtrip DIR MIB} mib=${2:?data_roundtrip DIR MIB}
	local want=$((mib * 1024 * 1024)) src back got
	src=$(mktemp /tmp/roundtrip.src.XXXXXX)
	back=$(mktemp /tmp/roundtrip.back.XXXXXX)
	head -c "$want" /dev/urandom >"$src"
	if ! dd if="$src" of="$dir/roundtrip.bin" bs=4k oflag=direct status=none ||
		! dd if="$dir/roundtrip.bin" of="$back" bs=4k iflag=direct status=none; then
		lib_log "data_roundtrip: dd failed"
		rm -f "$src" "$back"
		return 1
	fi
	got=$(stat -c %s "$back")
	if [[ $got -ne $want ]]; then
		lib_log "data_roundtrip: read back $got bytes, wrote $want"
		rm -f "$src" "$back"
		return 1
	fi
	if ! cmp "$src" "$back"; then
		rm -f "$src" "$back"
		return 1
	fi
	lib_log "data_roundtrip: $got bytes compared equal"
	rm -f "$src" "$back" "$dir/roundtrip.bin"
}

# check_served LABEL DIR: the NFS server exports DIR, a vers=3 mount on /mnt
# over rdma carries a 4 MiB round trip; then unmount and stop the server
check_served() {
	local label=${1:?check_served LABEL DIR} dir=${2:?check_served LABEL DIR}
	nfs_server_start "$dir"
	nfs_mount 3 /mnt
	check "$label: vers=3 mounts over rdma" check_proto_rdma /mnt
	check "$label: 4 MiB O_DIRECT round trip compares equal" data_roundtrip /mnt 4
	nfs_umount /mnt
	nfs_server_stop
}

# ---------------------------------------------------------------- a set of guests
# wire_up: in a guest of tests/vm/run-set.sh, virtio-net up, each NIC
# (eth0, eth1, ...) with its address of RG_ADDRS (/28) and an rxe device
# on it (rxe0, rxe1, ...); NFS_SERVER is the hub's address (RG_PEER) on
# the others
wire_up() {
	local i=0 a dev
	modprobe virtio_net
	modprobe rdma_rxe
	for a in ${RG_ADDRS:?wire_up runs in a guest of run-set.sh}; do
		dev=eth$i
		for _ in $(seq 50); do
			ip link show "$dev" >/dev/null 2>&1 && break
			sleep 0.1
		done
		ip link set "$dev" up
		ip addr add "$a/28" dev "$dev"
		rdma link add "rxe$i" type rxe netdev "$dev"
		rxe_wait_active "rxe$i" || return 1
		lib_log "wire up: $dev $a, $(rdma link show "rxe$i/1")"
		i=$((i + 1))
	done
	[[ -z ${RG_PEER:-} ]] || NFS_SERVER=$RG_PEER
	echo "$RG_ROLE" >/proc/sys/kernel/hostname
}

# sync_say NAME: tell the other guests of the set NAME happened
sync_say() {
	echo "$RG_ROLE $(date +%s)" >"/sync/$1.tmp"
	mv "/sync/$1.tmp" "/sync/$1"
}

# sync_wait NAME [SECONDS]: wait until another guest said NAME
sync_wait() {
	local end=$((SECONDS + ${2:-1200}))
	while [[ ! -e /sync/$1 ]]; do
		if ((SECONDS > end)); then
			lib_log "waited ${2:-1200} s for /sync/$1"
			return 1
		fi
		if [[ -e /sync/failed ]]; then
			lib_log "$(cat /sync/failed) failed while this guest waited for $1"
			return 1
		fi
		sleep 0.5
	done
}
