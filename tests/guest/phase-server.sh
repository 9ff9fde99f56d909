#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): the negotiation.
# inline_size=0, a change while connected, and siw (refuses more than 80
# bytes). (Which Replies go inline is checked per NFS version in
# phase-integrity.sh; the size negotiation in phase-negotiation.sh, the
# per-driver policy in phase-drivers.sh.)

param=/sys/module/rpcrdma/parameters

# inline_size=0: the stock behaviour
echo 0 >"$param/inline_size"
insmod "$GUEST_MODULES/inline_limit.ko"
nfs_mount 3 /mnt
check "inline_size=0: asked 0, max 0 on both sides" \
	test "$(conn_field server asked) $(conn_field server max) $(conn_field client asked) $(conn_field client max)" = "0 0 0 0"
check "inline_size=0: one QP creation each" \
	test "$(conn_field server attempts) $(conn_field client attempts)" = "1 1"
check "inline_size=0: integrity workload (2 MiB, 50 files) compares equal" integrity_workload /mnt /export 2 50
check "inline_size=0: no inline Send on either side" \
	test "$(conn_field server inline) $(conn_field client inline)" = "0 0"
read -r _ _ s_br _ c_br _ _ _ _ _ _ d_in d_br _ <<<"$(counts_settled)"
check "inline_size=0: the driver saw no inline Send" test "$d_in" = 0
check "inline_size=0: the driver saw every Send by reference ($d_br)" test "$d_br" = $((s_br + c_br))

# A change while connected applies to new connections only
echo 64 >"$param/inline_size"
check "inline_size changed while mounted: this connection keeps max=0" test "$(conn_field server max)" = 0
nfs_umount /mnt
conns_gone || true
rmmod inline_limit
nfs_mount 3 /mnt
check "after a remount: max=64 on both sides" test "$(conn_field server max) $(conn_field client max)" = "64 64"
nfs_umount /mnt
conns_gone || true
echo 256 >"$param/inline_size"

# siw: a real driver that refuses more than 80 bytes, and is in the
# policy table with that limit
# insmod resolves no dependency: load siw's (ib_core, libcrc32c) first
siw_deps=$(modinfo -F depends "$GUEST_MODULES/siw.ko" | tr , ' ')
# shellcheck disable=SC2086 # a list of module names
if modprobe -a $siw_deps && insmod "$GUEST_MODULES/siw.ko"; then
	ip link add dummy1 type dummy
	ip link set dummy1 up
	ip addr add 192.168.78.1/24 dev dummy1
	rdma link add siw0 type siw netdev dummy1
	mkdir -p /mnt2
	mount -t nfs -o "rdma,port=$NFS_RDMA_PORT,vers=3" 192.168.78.1:/export /mnt2
	check "siw: mounted over siw0" test "$(conn_field client device)" = siw0
	log "siw: $(tr '\n' ';' <"$CONNS")"
	check "siw: the first connection asked none (what the stock QP gets), then siw's known limit, 80" \
		test "$(conn_field client asked) $(conn_field client granted) $(conn_field client attempts)" = "80 80 2"
	check "siw: the server's connection (a shape of its own) the same: two creations" \
		test "$(conn_field server asked) $(conn_field server attempts)" = "80 2"
	check "siw: integrity workload (2 MiB, 50 files) compares equal" integrity_workload /mnt2 /export 2 50
	check "siw: server Sends went inline" test "$(conn_field server inline)" -gt 0
	umount /mnt2
	conns_gone || true
	rdma link delete siw0
	ip link del dummy1
	rmmod siw
else
	check "siw.ko loads" false
fi
