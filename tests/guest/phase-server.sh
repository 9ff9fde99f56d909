#!/bin/bash
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): the server posts small
# Replies inline. Per NFS version: GETATTR and WRITE Replies go inline, READ
# Replies (which follow their data) by reference; the debugfs counters
# agree with the tracepoint and with the Sends the driver saw. Then
# inline_size=0, a runtime change, siw (refuses more than 80 bytes), and
# the vendor table on a wrapped rxe device.

param=/sys/module/rpcrdma/parameters
insmod "$GUEST_MODULES/inline_limit.ko" device=rxe0
for vers in 3 4.1; do
	hist_start
	d_in0=$(driver_sends inline)
	d_br0=$(driver_sends byref)
	nfs_mount "$vers" /mnt
	check "vers=$vers: server granted 256 on rxe" test "$(conn_field server max)" = 256
	head -c 65536 /dev/urandom >/tmp/w
	cp /tmp/w /mnt/meta
	sync

	in0=$(conn_field server inline) br0=$(conn_field server byref)
	for _ in $(seq 50); do head -c 1 /mnt/meta >/dev/null; done
	in1=$(conn_field server inline) br1=$(conn_field server byref)
	log "vers=$vers: 50 opens (GETATTR): server +$((in1 - in0)) inline, +$((br1 - br0)) by reference"
	check "vers=$vers: GETATTR Replies went inline" test $((in1 - in0)) -ge 50
	check "vers=$vers: no metadata Reply went by reference" test $((br1 - br0)) -eq 0

	dd if=/tmp/w of=/mnt/w bs=4k count=16 oflag=direct status=none
	in2=$(conn_field server inline) br2=$(conn_field server byref)
	log "vers=$vers: 16 4-KiB WRITEs: server +$((in2 - in1)) inline, +$((br2 - br1)) by reference"
	check "vers=$vers: WRITE Replies went inline" test $((in2 - in1)) -ge 16

	dd if=/mnt/w of=/tmp/r bs=4k count=16 iflag=direct status=none
	in3=$(conn_field server inline) br3=$(conn_field server byref)
	log "vers=$vers: 16 4-KiB READs: server +$((in3 - in2)) inline, +$((br3 - br2)) by reference"
	check "vers=$vers: READ Replies, after their data, went by reference" test $((br3 - br2)) -ge 16
	check "vers=$vers: data read back equal" cmp -n 65536 /tmp/w /tmp/r

	check "vers=$vers: integrity workload compares equal" integrity_workload /mnt /export
	s_in=$(conn_field server inline) s_br=$(conn_field server byref)
	c_in=$(conn_field client inline) c_br=$(conn_field client byref)
	log "vers=$vers: Sends: server $s_in inline, $s_br by reference; client $c_in inline, $c_br by reference"
	check "vers=$vers: tracepoint counts agree with the server's counters" \
		test "$(hist_count 0 1) $(hist_count 0 0)" = "$s_in $s_br"
	check "vers=$vers: tracepoint counts agree with the client's counters" \
		test "$(hist_count 1 1) $(hist_count 1 0)" = "$c_in $c_br"
	check "vers=$vers: the driver saw as many inline Sends" \
		test $(($(driver_sends inline) - d_in0)) = $((s_in + c_in))
	check "vers=$vers: the driver saw as many Sends by reference" \
		test $(($(driver_sends byref) - d_br0)) = $((s_br + c_br))
	hist_stop
	nfs_umount /mnt
	check "vers=$vers: connections leave the list" conns_gone
done
rmmod inline_limit

# inline_size=0: the stock behaviour
echo 0 >"$param/inline_size"
insmod "$GUEST_MODULES/inline_limit.ko" device=rxe0
nfs_mount 3 /mnt
check "inline_size=0: asked 0, max 0 on both sides" \
	test "$(conn_field server asked) $(conn_field server max) $(conn_field client asked) $(conn_field client max)" = "0 0 0 0"
check "inline_size=0: one QP creation each" \
	test "$(conn_field server attempts) $(conn_field client attempts)" = "1 1"
check "inline_size=0: integrity workload compares equal" integrity_workload /mnt /export
check "inline_size=0: no inline Send on either side" \
	test "$(conn_field server inline) $(conn_field client inline)" = "0 0"
check "inline_size=0: the driver saw no inline Send" test "$(driver_sends inline)" = 0
check "inline_size=0: the driver saw every Send by reference" \
	test "$(driver_sends byref)" = $(($(conn_field server byref) + $(conn_field client byref)))

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

# siw: a real driver that refuses more than 80 bytes
if insmod "$GUEST_MODULES/siw.ko"; then
	ip link add dummy1 type dummy
	ip link set dummy1 up
	ip addr add 192.168.78.1/24 dev dummy1
	rdma link add siw0 type siw netdev dummy1
	mkdir -p /mnt2
	mount -t nfs -o "rdma,port=$NFS_RDMA_PORT,vers=3" 192.168.78.1:/export /mnt2
	check "siw: mounted over siw0" test "$(conn_field client device)" = siw0
	log "siw: $(tr '\n' ';' <"$CONNS")"
	check "siw: the first connection stepped down from 256 to 80 (12 attempts)" \
		test "$(conn_field client asked) $(conn_field client granted) $(conn_field client attempts)" = "80 80 12"
	check "siw: the second connection on siw0 took one attempt" \
		test "$(conn_field server asked) $(conn_field server attempts)" = "80 1"
	check "siw: integrity workload compares equal" integrity_workload /mnt2 /export
	check "siw: server Sends went inline" test "$(conn_field server inline)" -gt 0
	umount /mnt2
	conns_gone || true
	rdma link delete siw0
	ip link del dummy1
	rmmod siw
else
	check "siw.ko loads" false
fi

# The vendor table, on rxe0 wrapped by inline_limit.ko
# vendor limit report: expected asked granted attempts(first connection)
while read -r name vendor limit report asked granted attempts; do
	rdma link delete rxe0
	rdma link add rxe0 type rxe netdev dummy0
	insmod "$GUEST_MODULES/inline_limit.ko" device=rxe0 limit="$limit" vendor_id="$vendor" report="$report"
	nfs_mount 3 /mnt
	log "$name: $(tr '\n' ';' <"$CONNS")"
	check "$name (limit $limit): client asked $asked, granted $granted, in $attempts attempts" \
		test "$(conn_field client asked) $(conn_field client granted) $(conn_field client attempts)" = "$asked $granted $attempts"
	check "$name: the device refused $((attempts - 1)) QP creations" \
		test "$(cat /sys/module/inline_limit/parameters/refused)" = $((attempts - 1))
	check "$name: the server's connection took one attempt" \
		test "$(conn_field server asked) $(conn_field server granted) $(conn_field server attempts)" = "$asked $granted 1"
	check "$name: data compares equal" data_roundtrip /mnt 1
	if [ "$granted" = 0 ]; then
		check "$name: no inline Send" test "$(driver_sends inline)" = 0
	fi
	check "$name: driver and counters agree" \
		test "$(driver_sends inline) $(driver_sends byref)" = "$(($(conn_field server inline) + $(conn_field client inline))) $(($(conn_field server byref) + $(conn_field client byref)))"
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
