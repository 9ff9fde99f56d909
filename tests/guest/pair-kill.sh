#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The server guest's QEMU killed under load and booted again, in each
# guest of a pair (tests/test-pair.sh with PAIR_KILL=1; tests/vm/run-set.sh
# --restart server --disk server=FILE). The server's export and its NFS
# state (/var/lib/nfs: statd, nfsdcld's client records) live on a disk
# image that outlives its QEMU (/dev/vdb), so a client's NFSv4 state can
# be reclaimed after the reboot; the root file system starts pristine on
# every boot, and ours is installed again.
#
# Per NFS version (PAIR_VERS, hard mounts), the client:
#   - writes file A (4 MiB, 64 KiB blocks, crc32c in every block,
#     fsync'd at its end) and records its sha256;
#   - starts 4 KiB QD1 random writes of file B under verify=crc32c, and
#     3 s in asks for the server's QEMU to be killed (/sync/kill-server);
#     the server boots again (RG_BOOT counts the boots) and serves the
#     same disk; B must finish with every block verified, without a
#     remount;
#   - reads A back equal (sha256, and the server compares it on its disk
#     on the last boot);
#   - reports the seconds I/O stalled (B's slowest I/O), its reconnects
#     (mountstats), the QP creations for them, the rxe counters that
#     moved, and (ours) whether its Calls behind REG_MR still go inline.
# Each server boot but the last is killed, so only the last checks its
# kernel log; test-pair.sh reads the consoles of the killed boots.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../vm/guest/lib.sh
. /src/tests/vm/guest/lib.sh
# shellcheck source-path=SCRIPTDIR source=common.sh
. /src/tests/guest/common.sh

role=$RG_ROLE
boot=${RG_BOOT:-1}
if [ "$RG_INDEX" = 0 ]; then side=server; else side=client; fi
mine=$(if [ $side = server ]; then echo "${PAIR_SERVER:-ours}"; else echo "${PAIR_CLIENT:-ours}"; fi)
read -r -a vers_list <<<"$(tr , " " <<<"${PAIR_VERS:-3}")"
log "$role: the NFS $side, $mine rpcrdma, kernel $(uname -r), boot $boot"
trap '[ -e /sync/failed ] || echo "$role" >/sync/failed' ERR

# The module first, then the wire: ours is installed with DKMS on every
# boot (tens of seconds), and while the wire is up with no listener each
# of the client's connect attempts is refused after its QP is made (8
# creations for one reconnect once, against stock's 1): the wire comes
# up as soon after the kill with either module
if [ "$mine" = ours ]; then
	install_ours
	check "$role: boot $boot: the loaded rpcrdma is rpcrdma-inline" ours_loaded
else
	modprobe rpcrdma
fi
wire_up
insmod "$GUEST_MODULES/inline_limit.ko" netdev=eth0

created() { cat /sys/module/inline_limit/parameters/created; }

if [ $side = server ]; then
	if [ "$boot" = 1 ]; then
		check "$role: a file system on the disk that outlives this QEMU" mkfs.ext4 -q -F /dev/vdb
	fi
	mkdir -p /persist
	check "$role: boot $boot: the disk mounted (its journal replayed after a kill)" mount /dev/vdb /persist
	if [ "$boot" = 1 ]; then
		mkdir -p /persist/export /persist/nfs
		cp -a /var/lib/nfs/. /persist/nfs/
	fi
	mount --bind /persist/nfs /var/lib/nfs
	mkdir -p /export
	mount --bind /persist/export /export
	# After a reboot, the grace period lets the client reclaim its NFSv4
	# state (nfsdcld ends it early once every known client has)
	if [ "$boot" -gt 1 ]; then export NFS_KEEP_GRACE=1; fi
	nfs_server_start /export
	sync_say "server-up-$boot"
	log "$role: boot $boot: serving /export from /dev/vdb"
	if [ "$boot" -le ${#vers_list[@]} ]; then
		# The client kills this boot; until then, serve
		sync_wait never-said 3000 || true
		exit 0
	fi
	sync_wait client-done 1800
	for vers in "${vers_list[@]}"; do
		check "$role: vers=$vers: file A, fsync'd before the kill, equal on the disk" \
			bash -c "cd /export && sha256sum --quiet -c /sync/kill-A-$vers.sha"
	done
	sync_say server-checked
	sync_wait client-unmounted 600
	nfs_server_stop
	if [ "$mine" = ours ]; then
		check "$role: no connection of ours left listed" bash -c "! [ -s $CONNS ]"
	fi
else
	nfs_client_start
	NFS_EXPORT=/export
	# An NFS task waits in TASK_KILLABLE while the server is down; the
	# guard is for anything else that waits longer than a reboot takes
	echo 600 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null || true
	mkdir -p /mnt
	k=1
	for vers in "${vers_list[@]}"; do
		sync_wait "server-up-$k" 1800
		nfs_mount "$vers" /mnt hard
		check "$role: vers=$vers: mounted over rdma from $NFS_SERVER" check_proto_rdma /mnt
		check "$role: vers=$vers: file A written with crc32c in every block and fsync'd" \
			fio --name=A --filename="/mnt/kill-A-$vers" --size=4M --bs=64k --rw=write --ioengine=psync \
			--direct=1 --verify=crc32c --end_fsync=1 --output="/tmp/fio-A-$vers.out"
		(cd /mnt && sha256sum "kill-A-$vers") >"/sync/kill-A-$vers.sha"
		fio --name=layout --filename="/mnt/kill-B-$vers" --size=4M --create_only=1 >/dev/null 2>&1 || true
		c0=$(connects) q0=$(created) x0=$(rxe_counters)
		rm -f /tmp/fio-B.rc
		(
			rc=0
			fio --name=B --filename="/mnt/kill-B-$vers" --size=4M --bs=4k --rw=randwrite --ioengine=psync \
				--direct=1 --iodepth=1 --verify=crc32c --verify_fatal=1 --randrepeat=1 \
				--output="/tmp/fio-B-$vers.out" || rc=$?
			echo "$rc" >/tmp/fio-B.rc
		) &
		sleep 3
		t=$SECONDS
		log "$role: vers=$vers: asking for the server's QEMU to be killed, under 4 KiB writes"
		sync_say kill-server
		wait
		log "$role: vers=$vers: the writes ended $((SECONDS - t)) s after the kill"
		check "$role: vers=$vers: file B's 4 KiB writes across the kill finished, every block verified ($(cat /tmp/fio-B.rc))" \
			bash -c "[ \"\$(cat /tmp/fio-B.rc)\" = 0 ] && ! grep -qiE 'verify: bad|crc32c: wanted' /tmp/fio-B-$vers.out"
		k=$((k + 1))
		check "$role: vers=$vers: the server booted again (boot $k)" test -e "/sync/server-up-$k"
		check "$role: vers=$vers: still the same mount, over rdma, no remount" check_proto_rdma /mnt
		echo 3 >/proc/sys/vm/drop_caches
		check "$role: vers=$vers: file A read back equal after the kill" \
			bash -c "cd /mnt && sha256sum --quiet -c /sync/kill-A-$vers.sha"
		ri0=$(cat /sys/module/inline_limit/parameters/sends_reg_inline)
		check "$role: vers=$vers: 1 MiB of 4 KiB writes after the reboot, verified" \
			fio --name=C --filename="/mnt/kill-C-$vers" --size=1M --bs=4k --rw=randwrite --ioengine=psync \
			--direct=1 --verify=crc32c --verify_fatal=1 --output="/tmp/fio-C-$vers.out"
		ri=$(($(cat /sys/module/inline_limit/parameters/sends_reg_inline) - ri0))
		rc=$(($(connects) - c0)) qc=$(($(created) - q0))
		log "$role: vers=$vers: stalled: slowest I/O of B (its writes and verifying reads) $(fio_slowest "/tmp/fio-B-$vers.out") s"
		log "$role: vers=$vers: reconnects $rc, QP creations $qc; rxe0 before: $x0"
		log "$role: vers=$vers: rxe0 after: $(rxe_counters)"
		check "$role: vers=$vers: the client reconnected ($rc) with QPs created for it ($qc)" \
			test "$rc" -ge 1 -a "$qc" -ge 1
		if [ "$mine" = ours ]; then
			log "$role: vers=$vers: $(conn_line client | cut -d' ' -f2-)"
			check "$role: vers=$vers: the live connection was made with one creation" \
				test "$(conn_field client attempts)" = 1
			# The connects tried while the server was dead, or booting,
			# each failed after making its QP: none stays listed
			check "$role: vers=$vers: one client connection listed, the live one ($(grep -c '^client ' "$CONNS"))" \
				test "$(grep -c '^client ' "$CONNS")" = 1
			check "$role: vers=$vers: its 4 KiB WRITE Calls behind REG_MR still go inline (+$ri)" \
				test "$ri" -ge 256
		fi
		nfs_umount /mnt
	done
	sync_say client-done
	sync_wait server-checked 600
	sync_say client-unmounted
fi

check "$role: inline_limit unloads" rmmod inline_limit
check "$role: rpcrdma unloads" unload_rpcrdma
check "$role: no kernel warnings" test "$(kernel_problems)" = 0
trap - ERR
tap_done || {
	[ -e /sync/failed ] || echo "$role" >/sync/failed
	exit 1
}
